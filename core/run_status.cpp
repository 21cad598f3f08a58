// Run statuses as stored words (see run_status.h).
#include "core/run_status.h"

namespace deepladder {

const char* toString(RunStatus status) {
  switch (status) {
    case RunStatus::kQueued:
      return "queued";
    case RunStatus::kRunning:
      return "running";
    case RunStatus::kFinished:
      return "finished";
    case RunStatus::kDiverged:
      return "diverged";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kInterrupted:
      return "interrupted";
    case RunStatus::kCancelled:
      return "cancelled";
    case RunStatus::kStopped:
      return "stopped";
  }
  return "failed";
}

std::optional<RunStatus> parseRunStatus(std::string_view word) {
  for (RunStatus status : kAllRunStatuses)
    if (word == toString(status)) return status;
  return std::nullopt;
}

}  // namespace deepladder
