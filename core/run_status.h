// The statuses a run may take, parsed and printed here only. A run's status is stored (the
// runs.status column, its CHECK constraint) and sent (the worker's done message) as the lower-case
// word toString gives, so databases and workers of other versions stay compatible. Every word and
// every set of statuses is spelled here once: SQL gets them through sqlStatusList, code compares
// RunStatus values. To add a status: one enumerator, one row of kRunStatusWords (run_status.cpp),
// and, when it is not final, its place in kUnfinishedRunStatuses.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// Every status, in the order of the table in run_status.cpp.
const std::vector<RunStatus>& allRunStatuses();

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

// The one "unfinished" set: queued, running or interrupted, a run that has not ended yet (it may
// be cancelled, and a scheduler still has work in it).
inline constexpr std::initializer_list<RunStatus> kUnfinishedRunStatuses = {
    RunStatus::kQueued, RunStatus::kRunning, RunStatus::kInterrupted};
bool isUnfinished(RunStatus status);

// Waiting for a scheduler to take it: queued or interrupted (what `resume` continues).
inline constexpr std::initializer_list<RunStatus> kResumableRunStatuses = {RunStatus::kQueued,
                                                                           RunStatus::kInterrupted};
bool isResumable(RunStatus status);

// The statuses schema v1's CHECK constraint admits (storage/schema.cpp). Frozen with that
// migration: a new status also needs a migration step that widens the constraint.
inline constexpr std::initializer_list<RunStatus> kRunStatusesOfSchemaV1 = {
    RunStatus::kQueued, RunStatus::kRunning,     RunStatus::kFinished, RunStatus::kDiverged,
    RunStatus::kFailed, RunStatus::kInterrupted, RunStatus::kCancelled};

// Ended without a result, so it may be queued again: failed or cancelled.
bool isRetryable(RunStatus status);

// The statuses as an SQL list of quoted words, "('queued','running')", for `status IN ...` (and,
// spelled exactly so, schema v1's CHECK constraint: the v9 migration edits that text).
std::string sqlStatusList(std::initializer_list<RunStatus> statuses);
std::string sqlStatusList(const std::vector<RunStatus>& statuses);
// One status as a quoted SQL literal, "'finished'".
std::string sqlStatus(RunStatus status);

}  // namespace deepladder
