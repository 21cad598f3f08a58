// What a user may do to runs, and doing it on the database: cancel unfinished runs, retry a
// failed or cancelled one, find the ladders that have runs to resume. One set of rules for
// `deepladder cancel` / `resume` and the workbench's Cancel / Retry / Resume buttons. A running
// scheduler notices a cancellation within a second and stops that run's worker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storage/database.h"

namespace deepladder::storage {

// queued, running or interrupted: a run that has not ended yet.
bool isCancellable(const std::string& status);
// failed or cancelled: a run that ended without a result and may be queued again.
bool isRetryable(const std::string& status);

// Marks the run cancelled when it is cancellable now (checked in the same statement); false when
// it is missing or has ended. A running run's scheduler then stops its worker, unless the run
// ends first: it is then stored as it ended (finished, say), not cancelled.
bool cancelRun(Database& db, int64_t run_id);

// Marks every cancellable run among `runs` cancelled; returns how many were.
int cancelRuns(Database& db, const std::vector<RunRecord>& runs);

// Queues a failed or cancelled run again (it resumes from its last checkpoint); false when the
// run is missing or its status is not retryable.
bool retryRun(Database& db, int64_t run_id);

// Reopens a point sweep halving stopped (status stopped): it becomes interrupted, so the next
// `resume` continues it from its last checkpoint to its end, and the reopening goes to the
// ladder's decision log (kind "halving-reopen"). False when the run is missing or not stopped.
bool reopenStoppedRun(Database& db, int64_t run_id, double now);

// Ladders (ids, ascending) with queued or interrupted runs; `only`: just that ladder.
std::vector<int64_t> laddersToResume(Database& db, std::optional<int64_t> only = std::nullopt);
// Runs outside any ladder (`deepladder train`) that are queued or interrupted, by id.
std::vector<int64_t> singleRunsToResume(Database& db);

// Single runs (no ladder, from `deepladder train`) left interrupted, ids ascending.
std::vector<int64_t> singleRunsToResume(Database& db);

}  // namespace deepladder::storage
