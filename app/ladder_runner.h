// Running a database queue from the command line: the scheduler (storage/queue_execution.h) with
// a progress display fed by its typed events, stopped cleanly by Ctrl-C / SIGTERM (the runs in
// flight end interrupted and resume from their checkpoints). Used by `run`, `resume`, `train`
// and `eval`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/ladder/ladder_spec.h"
#include "core/run_status.h"
#include "storage/queue_execution.h"

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
  std::function<std::vector<std::string>(int64_t run_id, RunStatus status)> on_run_ended;
  // Called on every progress line of a running run (its step so far): sweep halving
  // (app/ladder_halving.h). Returns lines to print; must be cheap when it has nothing to do.
  std::function<std::vector<std::string>(int64_t run_id, int64_t step)> on_progress;
};

// Path of the worker program: $DEEPLADDER_WORKER, else deepladder-worker beside this executable.
std::string findWorkerProgram();

// Runs `execution`'s queue to its end with progress lines; true when it was stopped by a signal.
bool runQueue(storage::QueueExecution& execution, const LadderRunOptions& options);

// Runs every pending run of `ladder_id` with `resources`. The caller holds the scheduler lock.
// Returns the number of runs that did not end finished (0 = the ladder is complete).
int runLadderQueue(storage::Database& db, int64_t ladder_id, const ladder::Resources& resources,
                   const LadderRunOptions& options);

// Runs the single run `run_id` (`deepladder train`: no ladder) in a queue of one with
// `resources`, holding its run directory's owner lock (core/run_dir_lock.h) throughout, so that a
// `resume` elsewhere sees it alive and leaves it alone. UserError when another process holds it.
// True when it was stopped by a signal.
bool runSingleRunQueue(storage::Database& db, int64_t run_id, const ladder::Resources& resources,
                       const LadderRunOptions& options);

}  // namespace deepladder::app
