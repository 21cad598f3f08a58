// Run control (storage/run_control.h) on a ladder whose worker is alive, dead, or replaced by
// another process with the same pid: liveness is read from the lock files' flocks, so a pid left
// in a lock file by a dead holder does not keep a run "alive" even when that pid now names a live
// process; cancel waits only for a run someone may still settle; retry queues failed and cancelled
// runs again; resume finds the runs a dead worker left.
#include "storage/run_control.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>

#include "core/run_dir_lock.h"
#include "core/run_status.h"
#include "core/scheduler/scheduler_lock.h"
#include "storage/database.h"
#include "storage/run_store_sqlite.h"
#include "tests/storage/temp_dir.h"

namespace deepladder::storage {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// A child process that runs `hold` (take a lock, say), tells the parent, and waits to be killed.
class ChildProcess {
 public:
  explicit ChildProcess(const std::function<void()>& hold = [] {}) {
    int ready[2];
    if (::pipe(ready) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ready[0]);
      hold();
      (void)!::write(ready[1], "x", 1);
      for (;;) ::pause();
    }
    ::close(ready[1]);
    char byte = 0;
    (void)!::read(ready[0], &byte, 1);
    ::close(ready[0]);
  }
  ~ChildProcess() { end(); }
  pid_t pid() const { return pid_; }
  void end() {  // kill -9: the kernel drops its locks
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

void writePid(const std::string& path, pid_t pid) {
  std::ofstream(path, std::ios::trunc) << pid << "\n";
}

enum class Worker { kAlive, kDead, kReplaced };

const char* workerName(Worker w) {
  return w == Worker::kAlive ? "alive" : w == Worker::kDead ? "dead" : "replaced";
}

// A database with one ladder of three runs (running, failed, cancelled) and one single run
// (`deepladder train`, running), each with a run directory. The running runs' worker lock is held
// by a live child (kAlive), was left by a killed one (kDead), or names a live process that does
// not hold it, as when a dead worker's pid is given to another process (kReplaced).
struct LadderFixture {
  explicit LadderFixture(Worker worker) {
    db_path = dir.file("runs.db");
    db = Database::open(db_path);
    ladder = db->upsertLadder("ladder", "spec", "hash");
    running = addRun("running", ladder, RunStatus::kRunning);
    failed = addRun("failed", ladder, RunStatus::kFailed);
    cancelled = addRun("cancelled", ladder, RunStatus::kCancelled);
    single = addRun("single", std::nullopt, RunStatus::kRunning);
    for (int64_t id : {running, single}) {
      const std::string workdir = db->run(id)->workdir;
      holders.push_back(std::make_unique<ChildProcess>(
          [workdir] { (void)RunDirLock::acquire(workdir, kWorkerLockName, 0).release(); }));
      if (worker == Worker::kAlive) continue;
      const pid_t old_pid = holders.back()->pid();
      holders.back()->end();  // the worker dies; its lock file still names it
      if (worker == Worker::kReplaced) {
        holders.push_back(std::make_unique<ChildProcess>());  // a live process, holding nothing
        writePid(workdir + "/" + kWorkerLockName, holders.back()->pid());
      } else {
        writePid(workdir + "/" + kWorkerLockName, old_pid);
      }
    }
  }

  int64_t addRun(const std::string& name, std::optional<int64_t> ladder_id, RunStatus status) {
    RunRecord run;
    run.name = name;
    run.ladder_id = ladder_id;
    run.workdir = dir.file(name);
    fs::create_directories(run.workdir);
    const int64_t id = db->insertRun(run);
    db->setRunStatus(id, status);
    return id;
  }

  TempDir dir;
  std::string db_path;
  std::unique_ptr<Database> db;
  int64_t ladder = 0, running = 0, failed = 0, cancelled = 0, single = 0;
  std::vector<std::unique_ptr<ChildProcess>> holders;
};

class RunControlTest : public ::testing::TestWithParam<Worker> {};

TEST_P(RunControlTest, LivenessIsTheLockNotThePidInItsFile) {
  LadderFixture f(GetParam());
  const bool alive = GetParam() == Worker::kAlive;
  EXPECT_EQ(runDirectoryHeld(*f.db->run(f.running)), alive);
  EXPECT_EQ(runDirectoryHeld(*f.db->run(f.single)), alive);
  EXPECT_EQ(someoneMaySettle(f.db_path, *f.db->run(f.running)), alive)
      << "no scheduler holds the database";
}

TEST_P(RunControlTest, CancelWaitsOnlyForARunSomeoneMayStillSettle) {
  LadderFixture f(GetParam());
  const bool alive = GetParam() == Worker::kAlive;
  const double wait_s = alive ? 0.3 : 30;  // a dead worker is not waited for at all
  const auto start = std::chrono::steady_clock::now();
  const std::vector<CancelOutcome> outcomes =
      cancelAndSettle(*f.db, f.db_path, runsOfTheirLadders(*f.db, {f.running}), wait_s);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(took, 5) << "waited for a worker that is " << workerName(GetParam());
  if (alive) {
    EXPECT_GE(took, 0.3) << "gave a live worker's scheduler no time to stop it";
  }

  ASSERT_EQ(outcomes.size(), 3u) << "the ladder's three runs";
  for (const CancelOutcome& o : outcomes) {
    if (o.before.id == f.running) {
      EXPECT_EQ(o.kind, CancelOutcome::Kind::kCancelled);
      EXPECT_EQ(o.now, RunStatus::kCancelled);
      EXPECT_FALSE(o.worker_stopped) << "nobody stored the run's end";
      EXPECT_EQ(o.still_stopping, alive);
    } else {
      EXPECT_EQ(o.kind, CancelOutcome::Kind::kAlreadyEnded) << o.before.name;
    }
  }
  EXPECT_EQ(f.db->run(f.single)->status, RunStatus::kRunning) << "not of the ladder";
}

TEST_P(RunControlTest, CancelOfARunThatEndsMeanwhileReportsItsEnd) {
  LadderFixture f(GetParam());
  // Listed while running, the run finishes before the cancellation is written.
  const RunRecord listed = *f.db->run(f.running);
  f.db->markRunDone(f.running, RunStatus::kFinished, 2.0, 10, 100, 1e9, 1.0, "");
  const auto outcomes = cancelAndSettle(*f.db, f.db_path, {listed}, 0);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].kind, CancelOutcome::Kind::kEndedFirst);
  EXPECT_EQ(outcomes[0].now, RunStatus::kFinished);
  EXPECT_EQ(f.db->run(f.running)->status, RunStatus::kFinished);
}

TEST_P(RunControlTest, RetryQueuesTheFailedAndCancelledRunsOfTheLadderAgain) {
  LadderFixture f(GetParam());
  const RetryOutcome retried = retryRuns(*f.db, {f.running, f.failed, f.cancelled, 999});
  EXPECT_EQ(retried.queued, 2) << "running is not retryable; 999 does not exist";
  EXPECT_EQ(retried.ladders, std::vector<int64_t>{f.ladder});
  EXPECT_EQ(f.db->run(f.failed)->status, RunStatus::kQueued);
  EXPECT_EQ(f.db->run(f.cancelled)->status, RunStatus::kQueued);
  EXPECT_EQ(f.db->run(f.running)->status, RunStatus::kRunning);
  EXPECT_EQ(laddersToResumeOf(*f.db, {f.failed}), std::vector<int64_t>{f.ladder});
}

TEST_P(RunControlTest, ResumeTakesTheRunsADeadWorkerLeftAndLeavesALiveOneRunning) {
  LadderFixture f(GetParam());
  const bool alive = GetParam() == Worker::kAlive;
  EXPECT_TRUE(laddersToResume(*f.db).empty()) << "nothing is queued or interrupted yet";
  // `resume` holds the scheduler lock, so no scheduler is alive: the ladder's running run is an
  // orphan either way; the single run is one only when its worker is gone.
  scheduler::SchedulerLock lock(f.db_path);
  EXPECT_EQ(markOrphanedRunsInterrupted(*f.db, std::nullopt), alive ? 1 : 2);
  EXPECT_EQ(laddersToResume(*f.db), std::vector<int64_t>{f.ladder});
  EXPECT_EQ(f.db->run(f.single)->status, alive ? RunStatus::kRunning : RunStatus::kInterrupted);
  EXPECT_EQ(singleRunsToResume(*f.db),
            alive ? std::vector<int64_t>{} : std::vector<int64_t>{f.single});
}

INSTANTIATE_TEST_SUITE_P(Worker, RunControlTest,
                         ::testing::Values(Worker::kAlive, Worker::kDead, Worker::kReplaced),
                         [](const auto& info) { return std::string(workerName(info.param)); });

TEST(RunControlSchedulerTest, OtherSchedulerIsTheLockHolderNotThePidInTheFile) {
  TempDir dir;
  const std::string db = dir.file("runs.db");
  EXPECT_FALSE(otherSchedulerPid(db)) << "no lock file";
  {
    ChildProcess scheduler([db] { new scheduler::SchedulerLock(db); });  // held until killed
    EXPECT_EQ(otherSchedulerPid(db), scheduler.pid());
  }
  EXPECT_FALSE(otherSchedulerPid(db)) << "a killed scheduler holds nothing";
  ChildProcess same_pid;  // the dead scheduler's pid, given to a process that holds nothing
  writePid(scheduler::schedulerLockPath(db), same_pid.pid());
  EXPECT_FALSE(otherSchedulerPid(db));
  scheduler::SchedulerLock mine(db);
  EXPECT_FALSE(otherSchedulerPid(db)) << "this process is not another scheduler";
}

}  // namespace
}  // namespace deepladder::storage
