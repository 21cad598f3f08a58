// What a user may do to runs, and doing it: cancel unfinished runs (and wait for a running one's
// scheduler to stop its worker), retry a failed or cancelled one, find what there is to resume,
// and tell from the lock files who is alive. One set of rules for `deepladder cancel` / `resume`
// and the workbench's Cancel / Retry / Resume buttons; no view reads a lock file or signals a
// process. A running scheduler notices a cancellation within a second and stops that run's worker.
//
// Liveness is read from flocks (core/run_dir_lock.h, core/scheduler/scheduler_lock.h), never from
// a pid in a file alone: a holder that died has released its lock, even when its pid now names
// another process.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storage/database.h"

namespace deepladder::storage {

// --- liveness ---------------------------------------------------------------------------------

// True while a `deepladder train` process or a worker holds the run's directory (its lock).
bool runDirectoryHeld(const RunRecord& run);

// The pid of the live process, other than this one, that holds the database's scheduler lock;
// nullopt when there is none (or this process holds it).
std::optional<pid_t> otherSchedulerPid(const std::string& db_path);

// True while some process may still settle the run: a scheduler holds the database, or a process
// holds the run's directory.
bool someoneMaySettle(const std::string& db_path, const RunRecord& run);

// --- cancel -----------------------------------------------------------------------------------

// A run is cancellable while it is unfinished, retryable when it failed or was cancelled
// (core/run_status.h: isUnfinished, isRetryable).

// Marks the run cancelled when it is cancellable now (checked in the same statement); false when
// it is missing or has ended. A running run's scheduler then stops its worker, unless the run
// ends first: it is then stored as it ended (finished, say), not cancelled.
bool cancelRun(Database& db, int64_t run_id);

// Marks every cancellable run among `runs` cancelled; returns how many were.
int cancelRuns(Database& db, const std::vector<RunRecord>& runs);

// What became of one run a cancellation was asked for.
struct CancelOutcome {
  enum class Kind {
    kCancelled,           // it is cancelled now
    kAlreadyEnded,        // it had ended before it was asked (nothing to cancel)
    kEndedFirst,          // it ended (or went) between being listed and being marked cancelled
    kEndedBeforeReached,  // marked cancelled, it ended before its scheduler stopped it
  };
  Kind kind = Kind::kCancelled;
  RunRecord before;              // as it was listed
  std::optional<RunStatus> now;  // its status now (nullopt when the run is gone)
  bool worker_stopped = false;   // it was running and its scheduler stored its end
  bool still_stopping = false;   // it was running and its worker has not been seen to stop yet
};

// Cancels each of `targets` that is cancellable; a running one is waited on (up to `wait_s`, and
// only while someoneMaySettle) until its scheduler stores its end. One outcome per target.
std::vector<CancelOutcome> cancelAndSettle(Database& db, const std::string& db_path,
                                           const std::vector<RunRecord>& targets, double wait_s);

// The runs with these ids (missing ones left out), and every run of their ladders.
std::vector<RunRecord> runsWithIds(Database& db, const std::vector<int64_t>& run_ids);
std::vector<RunRecord> runsOfTheirLadders(Database& db, const std::vector<int64_t>& run_ids,
                                          int* ladder_count = nullptr);

// --- retry ------------------------------------------------------------------------------------

// Queues a failed or cancelled run again (it resumes from its last checkpoint); false when the
// run is missing or its status is not retryable.
bool retryRun(Database& db, int64_t run_id);

// Reopens a point sweep halving stopped (status stopped): it becomes interrupted, so the next
// `resume` continues it from its last checkpoint to its end, and the reopening goes to the
// ladder's decision log (kind "halving-reopen"). False when the run is missing or not stopped.
bool reopenStoppedRun(Database& db, int64_t run_id, double now);

// What retryRuns did: how many runs it queued again, and their ladders (ids, ascending).
struct RetryOutcome {
  int queued = 0;
  std::vector<int64_t> ladders;
};
RetryOutcome retryRuns(Database& db, const std::vector<int64_t>& run_ids);

// --- resume -----------------------------------------------------------------------------------

// Ladders (ids, ascending) with queued or interrupted runs; `only`: just that ladder.
std::vector<int64_t> laddersToResume(Database& db, std::optional<int64_t> only = std::nullopt);
// The same among the ladders of these runs (every ladder when none of them is in a ladder).
std::vector<int64_t> laddersToResumeOf(Database& db, const std::vector<int64_t>& run_ids);

// Runs outside any ladder (`deepladder train`) that are queued or interrupted, ids ascending.
std::vector<int64_t> singleRunsToResume(Database& db);

}  // namespace deepladder::storage
