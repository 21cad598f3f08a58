// How a run ended, decided from what its worker said and how its process exited. One rule for
// `train`, the local scheduler and the Slurm backend:
//   done(finished|diverged) seen        -> that status (any other done status -> "failed")
//   interrupted by the user/scheduler   -> "interrupted" (resumable from its last checkpoint)
//   exit status kExitDiskFull           -> "interrupted", disk_full (core/disk_full.h)
//   otherwise (crash, kill -9, OOM)     -> "failed" with the exit description and the last error
// A failed run is retried unless the worker exited with status 2 (bad input: the same input fails
// again); see isBadInputExit.
#pragma once

#include <optional>
#include <string>

#include "core/run_status.h"
#include "core/worker_process.h"

namespace deepladder {

struct RunOutcome {
  RunStatus status = RunStatus::kFailed;
  std::string message;
  // The worker exited with status 2 (kExitBadInput): the run's input is wrong, and a retry from
  // the last checkpoint would fail the same way.
  bool bad_input = false;
  // The worker exited with kExitDiskFull: the run keeps its last whole checkpoint and resumes
  // from it; the scheduler launches nothing more (every run would meet the same full disk).
  bool disk_full = false;
};

// True when the worker said its input is bad (exit status 2, kExitBadInput): never retried.
bool isBadInputExit(const ProcessExit& exit);

RunOutcome decideRunOutcome(const std::optional<RunStatus>& done_status,
                            const std::string& done_message, const ProcessExit& exit,
                            bool interrupted, const std::string& last_error);

}  // namespace deepladder
