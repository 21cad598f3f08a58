// Run outcome rule (see run_outcome.h).
#include "core/run_outcome.h"

#include "core/disk_full.h"
#include "core/errors.h"
#include "core/run_status.h"
#include "core/safe_text.h"

namespace deepladder {

bool isBadInputExit(const ProcessExit& exit) {
  return exit.exited && exit.code == kExitBadInput;
}

RunOutcome decideRunOutcome(const std::optional<std::string>& done_status,
                            const std::string& done_message, const ProcessExit& exit,
                            bool interrupted, const std::string& last_error) {
  if (const auto status = done_status ? parseRunStatus(*done_status) : std::nullopt;
      status && completedTraining(*status))
    return {*status, done_message};
  if (done_status)  // a worker of another version, or garbage on its stdout
    return {RunStatus::kFailed,
            "the worker reported an unknown outcome \"" + shownText(*done_status) + "\""};
  if (interrupted)
    return {RunStatus::kInterrupted,
            "stopped before the end; resume continues from its last checkpoint"};
  if (exit.exited && exit.code == kExitDiskFull) {
    RunOutcome full{
        RunStatus::kInterrupted,
        "stopped by a full disk" +
            (last_error.empty() ? std::string() : ": " + boundedText(last_error, 2000)) +
            ". Free space, then `deepladder resume` continues it from its last "
            "checkpoint"};
    full.disk_full = true;
    return full;
  }
  std::string message = "worker ended without finishing (" + exit.describe() + ")";
  if (exit.exited && exit.code == 127) message += ": the worker program could not be started";
  const bool bad_input = isBadInputExit(exit);
  if (bad_input) message += ", bad input: not retried";
  if (!last_error.empty()) message += ": " + boundedText(last_error, 2000);
  return {RunStatus::kFailed, message, bad_input};
}

}  // namespace deepladder
