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

RunOutcome decideRunOutcome(const std::optional<RunStatus>& done_status,
                            const std::string& done_message, const ProcessExit& exit,
                            bool interrupted, const std::string& last_error) {
  if (done_status && completedTraining(*done_status)) return {*done_status, done_message};
  if (done_status)  // the protocol decodes only finished and diverged: a programming error
    return {RunStatus::kFailed, std::string("the worker reported the outcome \"") +
                                    toString(*done_status) + "\", not an end of training"};
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
