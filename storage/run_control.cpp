// Cancel, retry and resume rules (see run_control.h).
#include "storage/run_control.h"

#include <set>

#include "core/run_status.h"

namespace deepladder::storage {

bool isCancellable(const std::string& status) {
  return status == RunStatus::kQueued || status == RunStatus::kRunning ||
         status == RunStatus::kInterrupted;
}

bool isRetryable(const std::string& status) {
  return status == RunStatus::kFailed || status == RunStatus::kCancelled;
}

bool cancelRun(Database& db, int64_t run_id) {
  // One statement: the status is checked where it is changed, so a run that ended since it was
  // listed stays as it ended.
  db.execute("UPDATE runs SET status = 'cancelled', error = 'cancelled by the user' WHERE id = " +
             std::to_string(run_id) + " AND status IN ('queued', 'running', 'interrupted')");
  return db.queryInt("SELECT changes()") == 1;
}

int cancelRuns(Database& db, const std::vector<RunRecord>& runs) {
  int cancelled = 0;
  for (const auto& run : runs)
    if (isCancellable(run.status) && cancelRun(db, run.id)) ++cancelled;
  return cancelled;
}

bool retryRun(Database& db, int64_t run_id) {
  const std::optional<RunRecord> run = db.run(run_id);
  if (!run || !isRetryable(run->status)) return false;
  db.setRunStatus(run_id, RunStatus::kQueued, "queued again by the user (was " + run->status + ")");
  return true;
}

bool reopenStoppedRun(Database& db, int64_t run_id, double now) {
  const std::optional<RunRecord> run = db.run(run_id);
  if (!run || run->status != RunStatus::kStopped) return false;
  Transaction tx(db);
  db.setRunStatus(run_id, RunStatus::kInterrupted,
                  "reopened after sweep halving stopped it (" + run->error +
                      "); resumes from its last checkpoint");
  if (run->ladder_id) {
    DecisionRecord d;
    d.ladder_id = *run->ladder_id;
    d.created = now;
    d.kind = "halving-reopen";
    d.run_id = run_id;
    d.reason = "reopened by the user (resume --stopped)";
    db.insertDecision(d);
  }
  tx.commit();
  return true;
}

std::vector<int64_t> laddersToResume(Database& db, std::optional<int64_t> only) {
  std::set<int64_t> ladders;
  for (const auto& s : db.listRuns(only))
    if (s.run.ladder_id &&
        (s.run.status == RunStatus::kQueued || s.run.status == RunStatus::kInterrupted))
      ladders.insert(*s.run.ladder_id);
  return {ladders.begin(), ladders.end()};
}

std::vector<int64_t> singleRunsToResume(Database& db) {
  std::vector<int64_t> runs;
  for (const auto& s : db.listRuns())
    if (!s.run.ladder_id &&
        (s.run.status == RunStatus::kQueued || s.run.status == RunStatus::kInterrupted))
      runs.push_back(s.run.id);
  return runs;
}

}  // namespace deepladder::storage
