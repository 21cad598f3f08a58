// The statuses a run may take, parsed and printed here only. A run's status is stored (the
// runs.status column, its CHECK constraint) and sent (the worker's done message) as the lower-case
// word toString gives, so databases and workers of other versions stay compatible; code compares
// a stored word with a RunStatus (`run.status == RunStatus::kFinished`) instead of spelling it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace deepladder {

enum class RunStatus {
  kQueued,       // waits for a slot (also a failed attempt that will be retried)
  kRunning,      // a worker trains it (or a scheduler that died left it so)
  kFinished,     // trained to the end
  kDiverged,     // ended early on a NaN/Inf loss: an outcome, not an error
  kFailed,       // ended without finishing (crash, bad input, retries spent)
  kInterrupted,  // stopped before the end; resumable from its last checkpoint
  kCancelled,    // stopped by the user
  kStopped,      // stopped early by sweep halving (fitting/sweep_halving.h): its point could not
                 // win; resumable from its last checkpoint (`resume --stopped`)
};

inline constexpr RunStatus kAllRunStatuses[] = {
    RunStatus::kQueued, RunStatus::kRunning,     RunStatus::kFinished,  RunStatus::kDiverged,
    RunStatus::kFailed, RunStatus::kInterrupted, RunStatus::kCancelled, RunStatus::kStopped};

// The stored word: "queued", "running", "finished", "diverged", "failed", "interrupted",
// "cancelled", "stopped".
const char* toString(RunStatus status);

// The status a stored word names; nullopt for any other text.
std::optional<RunStatus> parseRunStatus(std::string_view word);
inline bool isRunStatus(std::string_view word) {
  return parseRunStatus(word).has_value();
}

// A run that trained to its end, finished or diverged: it has a final loss and its compute counts.
inline bool completedTraining(RunStatus status) {
  return status == RunStatus::kFinished || status == RunStatus::kDiverged;
}

// A stored word compared with a status (false for a word that names none).
inline bool operator==(std::string_view word, RunStatus status) {
  return word == toString(status);
}
inline bool operator==(RunStatus status, std::string_view word) {
  return word == status;
}
inline bool operator!=(std::string_view word, RunStatus status) {
  return !(word == status);
}
inline bool operator!=(RunStatus status, std::string_view word) {
  return !(word == status);
}

}  // namespace deepladder
