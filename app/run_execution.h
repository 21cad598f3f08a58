// Running one planned run to its end: spawn `deepladder-worker`, ingest its protocol output into
// the store, show progress, and settle the run's status from how the worker ended. Shared by
// `deepladder train` and the ladder scheduler's local backend.
#pragma once

#include <cstdint>
#include <string>

namespace deepladder::storage {
class Database;
}

namespace deepladder::app {

struct RunExecutionOptions {
  std::string worker_path;  // "" = find deepladder-worker beside this program
  bool resume = false;      // pass --resume (continue from the newest valid checkpoint)
  bool show_progress = true;
  int64_t total_steps = 0;  // for the progress bar / ETA
};

struct RunExecutionResult {
  std::string status;  // finished, diverged, failed, interrupted
  std::string message;
};

// Path of the worker program: $DEEPLADDER_WORKER, else deepladder-worker beside this executable.
std::string findWorkerProgram();

// Runs the run `run_id` (its config JSON and workdir already stored) to the end, holding the run
// directory's owner lock (core/run_dir_lock.h) throughout; UserError when another process holds
// it already.
RunExecutionResult executeRun(storage::Database& db, int64_t run_id,
                              const RunExecutionOptions& options);

// Set by SIGINT/SIGTERM handlers so a running execution stops its worker and marks the run
// interrupted (resumable), instead of leaving it "running".
void installInterruptHandlers();
bool interruptRequested();

}  // namespace deepladder::app
