// Cancel, retry and resume rules, and liveness from lock files (see run_control.h).
#include "storage/run_control.h"

#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>

#include "core/run_dir_lock.h"
#include "core/run_status.h"
#include "core/scheduler/scheduler_lock.h"

namespace deepladder::storage {
namespace {

// What became of a run that was cancelled while running: its scheduler stops the worker and
// stores the end (finished != 0), unless the run ended first and is stored as it ended.
std::optional<RunRecord> awaitSettled(Database& db, const std::string& db_path,
                                      const RunRecord& run, double wait_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  const bool watched = someoneMaySettle(db_path, run);
  for (;;) {
    std::optional<RunRecord> now = db.run(run.id);
    if (!now || !watched || now->finished > 0 || now->status != RunStatus::kCancelled ||
        std::chrono::steady_clock::now() >= deadline)
      return now;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

// --- liveness ---------------------------------------------------------------------------------

bool runDirectoryHeld(const RunRecord& run) {
  return !run.workdir.empty() && (lockHolder(run.workdir, kOwnerLockName).has_value() ||
                                  lockHolder(run.workdir, kWorkerLockName).has_value());
}

std::optional<pid_t> otherSchedulerPid(const std::string& db_path) {
  const std::optional<pid_t> holder = scheduler::schedulerLockHolder(db_path);
  if (!holder || *holder == ::getpid()) return std::nullopt;
  return holder;
}

bool someoneMaySettle(const std::string& db_path, const RunRecord& run) {
  return runDirectoryHeld(run) || scheduler::schedulerLockHolder(db_path).has_value();
}

// --- cancel -----------------------------------------------------------------------------------

bool cancelRun(Database& db, int64_t run_id) {
  // One statement: the status is checked where it is changed, so a run that ended since it was
  // listed stays as it ended.
  db.execute("UPDATE runs SET status = " + sqlStatus(RunStatus::kCancelled) +
             ", error = 'cancelled by the user' WHERE id = " + std::to_string(run_id) +
             " AND status IN " + sqlStatusList(kUnfinishedRunStatuses));
  return db.queryInt("SELECT changes()") == 1;
}

int cancelRuns(Database& db, const std::vector<RunRecord>& runs) {
  int cancelled = 0;
  for (const auto& run : runs)
    if (isUnfinished(run.status) && cancelRun(db, run.id)) ++cancelled;
  return cancelled;
}

std::vector<CancelOutcome> cancelAndSettle(Database& db, const std::string& db_path,
                                           const std::vector<RunRecord>& targets, double wait_s) {
  std::vector<CancelOutcome> outcomes;
  for (const RunRecord& run : targets) {
    CancelOutcome outcome;
    outcome.before = run;
    if (!isUnfinished(run.status)) {
      outcome.kind = CancelOutcome::Kind::kAlreadyEnded;
      outcome.now = run.status;
    } else if (!cancelRun(db, run.id)) {
      outcome.kind = CancelOutcome::Kind::kEndedFirst;
      if (const std::optional<RunRecord> now = db.run(run.id)) outcome.now = now->status;
    } else {
      const bool was_running = run.status == RunStatus::kRunning;
      const std::optional<RunRecord> end =
          was_running ? awaitSettled(db, db_path, run, wait_s) : db.run(run.id);
      if (end) outcome.now = end->status;
      if (end && end->status == RunStatus::kCancelled) {
        outcome.worker_stopped = was_running && end->finished > 0;
        outcome.still_stopping =
            was_running && end->finished <= 0 && someoneMaySettle(db_path, run);
      } else {
        outcome.kind = CancelOutcome::Kind::kEndedBeforeReached;
      }
    }
    outcomes.push_back(outcome);
  }
  return outcomes;
}

std::vector<RunRecord> runsWithIds(Database& db, const std::vector<int64_t>& run_ids) {
  std::vector<RunRecord> runs;
  for (int64_t id : run_ids)
    if (std::optional<RunRecord> run = db.run(id)) runs.push_back(*run);
  return runs;
}

std::vector<RunRecord> runsOfTheirLadders(Database& db, const std::vector<int64_t>& run_ids,
                                          int* ladder_count) {
  std::set<int64_t> ladders;
  for (const RunRecord& run : runsWithIds(db, run_ids))
    if (run.ladder_id) ladders.insert(*run.ladder_id);
  std::vector<RunRecord> runs;
  for (int64_t ladder : ladders)
    for (const RunSummary& s : db.listRuns(ladder)) runs.push_back(s.run);
  if (ladder_count) *ladder_count = static_cast<int>(ladders.size());
  return runs;
}

// --- retry ------------------------------------------------------------------------------------

bool retryRun(Database& db, int64_t run_id) {
  const std::optional<RunRecord> run = db.run(run_id);
  if (!run || !isRetryable(run->status)) return false;
  db.setRunStatus(run_id, RunStatus::kQueued,
                  std::string("queued again by the user (was ") + toString(run->status) + ")");
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

RetryOutcome retryRuns(Database& db, const std::vector<int64_t>& run_ids) {
  RetryOutcome outcome;
  std::set<int64_t> ladders;
  for (const RunRecord& run : runsWithIds(db, run_ids)) {
    if (!retryRun(db, run.id)) continue;
    ++outcome.queued;
    if (run.ladder_id) ladders.insert(*run.ladder_id);
  }
  outcome.ladders.assign(ladders.begin(), ladders.end());
  return outcome;
}

// --- resume -----------------------------------------------------------------------------------

std::vector<int64_t> laddersToResume(Database& db, std::optional<int64_t> only) {
  std::set<int64_t> ladders;
  for (const auto& s : db.listRuns(only))
    if (s.run.ladder_id && isResumable(s.run.status)) ladders.insert(*s.run.ladder_id);
  return {ladders.begin(), ladders.end()};
}

std::vector<int64_t> laddersToResumeOf(Database& db, const std::vector<int64_t>& run_ids) {
  std::set<int64_t> wanted;
  for (const RunRecord& run : runsWithIds(db, run_ids))
    if (run.ladder_id) wanted.insert(*run.ladder_id);
  std::vector<int64_t> ladders;
  for (int64_t ladder : laddersToResume(db))
    if (wanted.empty() || wanted.count(ladder)) ladders.push_back(ladder);
  return ladders;
}

std::vector<int64_t> singleRunsToResume(Database& db) {
  std::vector<int64_t> runs;
  for (const auto& s : db.listRuns())
    if (!s.run.ladder_id && isResumable(s.run.status)) runs.push_back(s.run.id);
  return runs;
}

}  // namespace deepladder::storage
