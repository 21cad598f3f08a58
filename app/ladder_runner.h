// Wiring for `deepladder run` and `resume`: the scheduler over the SQLite queue with a backend
// chosen by the ladder's resources, and a progress display fed by the scheduler's events.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/ladder/ladder_spec.h"

namespace deepladder::storage {
class Database;
}

namespace deepladder::app {

struct LadderRunOptions {
  std::string db_path;
  std::string worker_path;  // "" = beside this program
  bool show_progress = true;
};

// Runs every pending run of `ladder_id` with `resources`. The caller holds the scheduler lock.
// Returns the number of runs that did not end finished (0 = the ladder is complete).
int runLadderQueue(storage::Database& db, int64_t ladder_id, const ladder::Resources& resources,
                   const LadderRunOptions& options);

}  // namespace deepladder::app
