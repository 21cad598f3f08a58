// Fault tolerance of a real ladder (real `deepladder` and `deepladder-worker` binaries, real
// SQLite): kill -9 a worker mid-run and, separately, the scheduler itself (its workers die with
// it, and an immediate resume runs one worker per run); the ladder finishes,
// every loss curve is continuous with no duplicated steps, at most one checkpoint interval of
// work is lost, and PRAGMA integrity_check is ok.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "core/run_dir_lock.h"
#include "core/worker_process.h"
#include "storage/database.h"
#include "tests/app/cli_fixture.h"

namespace fs = std::filesystem;
using namespace deepladder;

namespace {

// Long enough that a run cannot end between the step a test waits for (25) and its kill: at 60
// steps the fused CPU kernels finished a run inside that window.
constexpr int kSteps = 300;
constexpr int kCheckpointEvery = 10;

// Two sizes (runs 1 and 2) on one CPU slot; or, with ranks = 2, one data-parallel run over two
// CPU slots.
std::string ladderText(const std::string& name, const std::string& dir, int ranks = 1) {
  const std::string sizes =
      ranks == 1 ? "[sizes]\nlist = [ { name = \"a\", d_model = 32, n_layer = 1 }, "
                   "{ name = \"b\", d_model = 32, n_layer = 2 } ]\n"
                 : "[sizes]\nlist = [ { name = \"b\", d_model = 32, n_layer = 2 } ]\n";
  return "[ladder]\nname = \"" + name +
         "\"\nseeds = [1]\n"
         "[model]\nseq_len = 32\nn_head = 2\n"
         "[data]\nkind = \"text\"\ntrain = \"" +
         dir + "/train.txt\"\nval = \"" + dir +
         "/val.txt\"\n"
         "[train]\nbatch_size = 4\nwarmup_steps = 2\neval_every = 20\neval_batches = 2\n"
         "checkpoint_every = " +
         std::to_string(kCheckpointEvery) + "\nthreads = 1\n" + "ranks = " + std::to_string(ranks) +
         "\n" + sizes + "[budget]\nrule = \"tokens\"\ntokens = " + std::to_string(kSteps * 4 * 32) +
         "\n"
         "[arms.vanilla]\n"
         "[resources]\nbackend = \"local\"\ndevices = \"cpu\"\nslots = " +
         std::to_string(ranks) + "\nretries = 2\npeer_timeout_s = 20\n";
}

// The value of an environment variable of process `pid` ("" when unset).
std::string processEnvironment(pid_t pid, const std::string& name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  const std::string prefix = name + "=";
  for (std::string entry; std::getline(in, entry, '\0');)
    if (entry.rfind(prefix, 0) == 0) return entry.substr(prefix.size());
  return "";
}

// pid of a deepladder-worker process whose arguments (argv[1..]) `match` says is the one, or -1.
pid_t findWorkerWhere(const std::function<bool(pid_t, const std::vector<std::string>&)>& match) {
  DIR* proc = opendir("/proc");
  if (!proc) return -1;
  pid_t found = -1;
  while (dirent* entry = readdir(proc)) {
    const pid_t pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    std::ifstream in("/proc/" + std::string(entry->d_name) + "/cmdline", std::ios::binary);
    const std::string cmdline((std::istreambuf_iterator<char>(in)), {});
    std::vector<std::string> args;
    size_t start = 0;
    for (size_t i = 0; i < cmdline.size(); ++i)
      if (cmdline[i] == '\0') {
        args.push_back(cmdline.substr(start, i - start));
        start = i + 1;
      }
    if (args.empty() || args[0].find("deepladder-worker") == std::string::npos) continue;
    if (match(pid, args)) found = pid;
  }
  closedir(proc);
  return found;
}

// pid of the deepladder-worker process running `run_id` of the ladder under `dir` (as
// data-parallel rank `rank` when given), or -1. The directory tells this test's workers from
// those of other tests that run beside it with runs of the same id.
pid_t findWorker(const std::string& dir, int64_t run_id, const std::string& rank = "") {
  const std::string id = std::to_string(run_id);
  return findWorkerWhere([&](pid_t pid, const std::vector<std::string>& args) {
    const bool ours = std::any_of(args.begin(), args.end(), [&](const std::string& a) {
      return a.find(dir) != std::string::npos;
    });
    for (size_t i = 0; ours && i + 1 < args.size(); ++i)
      if (args[i] == "--run-id" && args[i + 1] == id &&
          (rank.empty() || processEnvironment(pid, "RANK") == rank))
        return true;
    return false;
  });
}

// pid of a worker one of whose arguments names a path under `dir` (this test's own worker,
// whatever other tests run beside it), or -1.
pid_t findWorkerUnder(const std::string& dir) {
  return findWorkerWhere([&](pid_t, const std::vector<std::string>& args) {
    return std::any_of(args.begin(), args.end(),
                       [&](const std::string& a) { return a.find(dir) != std::string::npos; });
  });
}

class LadderFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/deepladder-fault-XXXXXX";
    dir_ = mkdtemp(pattern);
    std::string text;
    for (int i = 0; i < 1500; ++i)  // one pass of the data holds a run's kSteps x 4 x 32 tokens
      text += "in the beginning was the word, and the word was " + std::to_string(i % 11) + ".\n";
    std::ofstream(dir_ / "train.txt") << text;
    std::ofstream(dir_ / "val.txt") << text.substr(0, 3000);
    db_ = (dir_ / "runs.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<WorkerProcess> start(const std::vector<std::string>& args) {
    ProcessSpec spec;
    spec.argv = {std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.stderr_path = (dir_ / "scheduler.log").string();
    return std::make_unique<WorkerProcess>(spec);
  }

  // Waits (reading the scheduler's output) until run `id` has logged step >= `step`.
  int64_t waitForStep(WorkerProcess& scheduler, int64_t id, int64_t step) {
    // Only ends a wait that hangs: a machine loaded 4 deep on 2 cores needs minutes, not seconds.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(600);
    while (std::chrono::steady_clock::now() < deadline) {
      scheduler.poll(50, [](const std::string&) {});
      try {
        auto db = storage::Database::open(db_, true);
        if (auto run = db->run(id); run && run->step >= step) return run->step;
      } catch (const std::exception&) {
        // the scheduler is still creating the database
      }
    }
    ADD_FAILURE() << "run " << id << " never reached step " << step;
    return -1;
  }

  void expectCompleteLadder(const std::string& ladder) {
    auto db = storage::Database::open(db_, true);
    EXPECT_EQ(db->integrityCheck(), "ok");
    auto id = db->findLadder(ladder);
    ASSERT_TRUE(id);
    for (const auto& s : db->listRuns(*id)) {
      EXPECT_EQ(s.run.status, RunStatus::kFinished) << s.run.name << ": " << s.run.error;
      const auto loss = db->readMetric(s.run.id, "train/loss");
      ASSERT_EQ(loss.size(), size_t(kSteps)) << s.run.name;
      for (size_t i = 0; i < loss.size(); ++i)
        EXPECT_EQ(loss[i].step, int64_t(i + 1)) << s.run.name;
      EXPECT_EQ(db->queryInt("SELECT COUNT(*) FROM metric_values WHERE run_id = " +
                             std::to_string(s.run.id) + " AND key = 'train/loss'"),
                kSteps);
    }
  }

  // pid of the worker training run `id` now: the holder of its run directory's worker lock
  // (core/run_dir_lock.h), whether it was launched cold or handed the run on standby.
  pid_t workerOf(int64_t id) {
    auto db = storage::Database::open(db_, true);
    const auto run = db->run(id);
    return run ? lockHolder(run->workdir, kWorkerLockName).value_or(-1) : -1;
  }

  // Step of the checkpoint run `id` resumed from (the ingester's "resumed" event), or -1.
  int64_t resumedFrom(int64_t id) {
    auto db = storage::Database::open(db_, true);
    int64_t step = -1;
    for (const auto& e : db->events(id))
      if (e.name == "resumed") step = e.step;
    return step;
  }

  fs::path dir_;
  std::string db_;
};

}  // namespace

TEST_F(LadderFaultTest, KilledWorkerIsResumedFromItsLastCheckpoint) {
  std::ofstream(dir_ / "ladder.toml") << ladderText("faults-worker", dir_.string());
  auto scheduler = start({"run", (dir_ / "ladder.toml").string(), "--db", db_, "--quiet"});
  // Runs start biggest first: run 2 (two layers) is the first one launched.
  const int64_t killed_at = waitForStep(*scheduler, 2, 25);
  const pid_t worker = workerOf(2);
  ASSERT_GT(worker, 0);
  ASSERT_EQ(::kill(worker, SIGKILL), 0);
  const ProcessExit exit = scheduler->runToEnd([](const std::string&) {});
  EXPECT_TRUE(exit.exited && exit.code == 0) << exit.describe();
  expectCompleteLadder("faults-worker");
  const int64_t resumed = resumedFrom(2);
  EXPECT_GE(resumed, killed_at - kCheckpointEvery) << "more than one checkpoint interval lost";
  EXPECT_GT(resumed, 0);
}

TEST_F(LadderFaultTest, KilledSchedulerIsPickedUpByResume) {
  std::ofstream(dir_ / "ladder.toml") << ladderText("faults-scheduler", dir_.string());
  auto scheduler = start({"run", (dir_ / "ladder.toml").string(), "--db", db_, "--quiet"});
  const int64_t killed_at = waitForStep(*scheduler, 2, 25);
  scheduler->terminate(SIGKILL);  // the scheduler's whole process group: like a lost node
  scheduler->runToEnd([](const std::string&) {});
  {
    auto db = storage::Database::open(db_, true);
    EXPECT_EQ(db->run(2)->status, RunStatus::kRunning);  // what a killed scheduler leaves behind
  }
  auto resume = start({"resume", "--db", db_, "--quiet"});
  const ProcessExit exit = resume->runToEnd([](const std::string&) {});
  EXPECT_TRUE(exit.exited && exit.code == 0) << exit.describe();
  expectCompleteLadder("faults-scheduler");
  const int64_t resumed = resumedFrom(2);
  EXPECT_GE(resumed, killed_at - kCheckpointEvery) << "more than one checkpoint interval lost";
}

TEST_F(LadderFaultTest, KilledRankStopsTheOtherAndTheRunResumes) {
  std::ofstream(dir_ / "ladder.toml") << ladderText("faults-rank", dir_.string(), /*ranks=*/2);
  auto scheduler = start({"run", (dir_ / "ladder.toml").string(), "--db", db_, "--quiet"});
  const int64_t killed_at = waitForStep(*scheduler, 1, 25);
  const pid_t rank0 = findWorker(dir_.string(), 1, "0");
  const pid_t rank1 = findWorker(dir_.string(), 1, "1");
  ASSERT_GT(rank0, 0);
  ASSERT_GT(rank1, 0);
  const auto killed = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(rank1, SIGKILL), 0);
  // Rank 0 cannot go on alone: it must be gone well within the peer timeout (20 s).
  while (::kill(rank0, 0) == 0 &&
         std::chrono::steady_clock::now() - killed < std::chrono::seconds(20)) {
    scheduler->poll(50, [](const std::string&) {});
  }
  const double stop_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  std::printf("[ faults   ] rank 0 stopped %.2f s after rank 1 was killed\n", stop_s);
  EXPECT_LT(stop_s, 20.0) << "rank 0 outlived its dead peer";
  const ProcessExit exit = scheduler->runToEnd([](const std::string&) {});
  EXPECT_TRUE(exit.exited && exit.code == 0) << exit.describe();
  expectCompleteLadder("faults-rank");
  const int64_t resumed = resumedFrom(1);
  EXPECT_GE(resumed, killed_at - kCheckpointEvery) << "more than one checkpoint interval lost";
  EXPECT_GT(resumed, 0);
  auto db = storage::Database::open(db_, true);
  EXPECT_NE(db->run(1)->device.find("2 ranks"), std::string::npos) << db->run(1)->device;
}

// `deepladder train` runs its run through the same scheduler and ingester as a ladder: killed
// with -9 (with its worker, as a lost node), the run is left "running" and `resume` picks the
// single run up from its last checkpoint, with a continuous curve.
TEST_F(LadderFaultTest, KilledTrainIsPickedUpByResume) {
  std::ofstream(dir_ / "run.toml")
      << "name = \"single\"\n[model]\nseq_len = 32\nn_head = 2\nd_model = 32\nn_layer = 2\n"
         "[data]\nkind = \"text\"\ntrain = \"" +
             (dir_ / "train.txt").string() + "\"\nval = \"" + (dir_ / "val.txt").string() +
             "\"\n[train]\nbatch_size = 4\nwarmup_steps = 2\neval_every = 20\neval_batches = 2\n"
             "checkpoint_every = " +
             std::to_string(kCheckpointEvery) + "\nthreads = 1\nsteps = " + std::to_string(kSteps) +
             "\n";
  auto train = start({"train", (dir_ / "run.toml").string(), "--db", db_});
  const int64_t killed_at = waitForStep(*train, 1, 25);
  const pid_t worker = findWorkerUnder(dir_.string());
  train->terminate(SIGKILL);
  train->runToEnd([](const std::string&) {});
  // The worker dies with its parent (a death signal, delivered asynchronously); resume after it
  // has, as a user would, or the orphan's last steps race the resumed run.
  ASSERT_GT(worker, 0) << "no worker found under " << dir_;
  EXPECT_TRUE(cli_fixture::endsWithin(worker, 5)) << "the worker outlived train";
  {
    auto db = storage::Database::open(db_, true);
    EXPECT_EQ(db->run(1)->status, RunStatus::kRunning);
  }
  auto resume = start({"resume", "--db", db_, "--quiet"});
  const ProcessExit exit = resume->runToEnd([](const std::string&) {});
  EXPECT_TRUE(exit.exited && exit.code == 0) << exit.describe();
  auto db = storage::Database::open(db_, true);
  EXPECT_EQ(db->run(1)->status, RunStatus::kFinished) << db->run(1)->error;
  const auto loss = db->readMetric(1, "train/loss");
  ASSERT_EQ(loss.size(), size_t(kSteps));
  for (size_t i = 0; i < loss.size(); ++i) EXPECT_EQ(loss[i].step, int64_t(i + 1));
  const int64_t resumed = resumedFrom(1);
  EXPECT_GE(resumed, killed_at - kCheckpointEvery) << "more than one checkpoint interval lost";
  EXPECT_GT(resumed, 0);
}

TEST_F(LadderFaultTest, KilledSchedulerTakesItsWorkerAlong) {
  std::ofstream(dir_ / "ladder.toml") << ladderText("faults-orphan", dir_.string());
  auto scheduler = start({"run", (dir_ / "ladder.toml").string(), "--db", db_, "--quiet"});
  waitForStep(*scheduler, 2, 15);
  const pid_t worker = workerOf(2);
  ASSERT_GT(worker, 0);
  ASSERT_EQ(::kill(scheduler->pid(), SIGKILL), 0);  // the scheduler alone, not its group
  scheduler->wait();
  // It stops at once (the parent-death signal); 30 s is the margin of a machine loaded 4 deep.
  EXPECT_TRUE(cli_fixture::endsWithin(worker, 30)) << "the worker outlived its scheduler";
  // An immediate resume: one worker per run directory, continuous curves.
  auto resume = start({"resume", "--db", db_, "--quiet"});
  const ProcessExit exit = resume->runToEnd([](const std::string&) {});
  EXPECT_TRUE(exit.exited && exit.code == 0) << exit.describe();
  expectCompleteLadder("faults-orphan");
}
