// Wiring for `deepladder run` and `resume`: the scheduler over the SQLite queue with a backend
// chosen by the ladder's resources, and a progress display fed by the scheduler's events.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/ladder/ladder_spec.h"

namespace deepladder::storage {
class Database;
}

namespace deepladder::app {

struct LadderRunOptions {
  std::string db_path;
  std::string worker_path;  // "" = beside this program
  bool show_progress = true;
  // Called when a run has ended for good (finished, diverged, failed or cancelled; not a retry),
  // after its status is stored: the one place `run` reacts to a run's end (live projection,
  // adaptive decisions). Returns lines to print. Runs it queues are picked up by the scheduler.
  std::function<std::vector<std::string>(int64_t run_id, const std::string& status)> on_run_ended;
};

// Runs every pending run of `ladder_id` with `resources`. The caller holds the scheduler lock.
// Returns the number of runs that did not end finished (0 = the ladder is complete).
int runLadderQueue(storage::Database& db, int64_t ladder_id, const ladder::Resources& resources,
                   const LadderRunOptions& options);

}  // namespace deepladder::app
