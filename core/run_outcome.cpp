// Run outcome rule (see run_outcome.h).
#include "core/run_outcome.h"

#include "core/errors.h"

namespace deepladder {

RunOutcome decideRunOutcome(const std::optional<std::string>& done_status,
                            const std::string& done_message, const ProcessExit& exit,
                            bool interrupted, const std::string& last_error) {
  if (done_status) return {*done_status, done_message};
  if (interrupted)
    return {"interrupted", "stopped before the end; resume continues from its last checkpoint"};
  std::string message = "worker ended without finishing (" + exit.describe() + ")";
  if (exit.exited && exit.code == 127) message += ": the worker program could not be started";
  if (!last_error.empty()) message += ": " + last_error;
  const bool bad_input = exit.exited && exit.code == kExitBadInput;
  return {"failed", message, bad_input};
}

}  // namespace deepladder
