// Orphan-proof runs with the real binaries: a `train` killed with kill -9 takes its worker along
// and `resume` finishes the run from its last checkpoint; `resume` leaves a live `train` alone;
// two workers never train one run directory at once.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <memory>
#include <thread>

#include "core/run_dir_lock.h"
#include "storage/database.h"
#include "tests/app/cli_fixture.h"

using namespace deepladder;
using namespace deepladder::cli_fixture;

namespace {

class OrphanTest : public CliTest {
 protected:
  std::unique_ptr<WorkerProcess> start(const std::string& program,
                                       const std::vector<std::string>& args,
                                       std::map<std::string, std::string> env = {}) {
    ProcessSpec spec;
    spec.argv = {std::string(DEEPLADDER_BINARY_DIR) + "/bin/" + program};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = std::move(env);
    spec.stderr_path = path(program + ".log");
    return std::make_unique<WorkerProcess>(spec);
  }

  // Waits (draining `process`'s output) until run `id` in the database has reached `step`.
  bool waitForStep(WorkerProcess& process, int64_t id, int64_t step) {
    // Only ends a wait that hangs: a machine loaded 4 deep on 2 cores needs minutes, not seconds.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(600);
    while (std::chrono::steady_clock::now() < deadline) {
      process.poll(50, [](const std::string&) {});
      try {
        auto db = storage::Database::open(path("runs.db"), true);
        if (auto run = db->run(id); run && run->step >= step) return true;
      } catch (const std::exception&) {
      }
    }
    return false;
  }

  RunStatus status(int64_t id) {
    return storage::Database::open(path("runs.db"), true)->run(id)->status;
  }

  // The single run's directory (deepladder-work/single/<id>-cli-tiny).
  // A run that trains until it is stopped: many passes over the tiny corpus.
  std::string endlessConfig() {
    std::string config = tinyConfig(dir_.string(), 100000);
    config.insert(config.find("[train]"), "max_epochs = 100000\n");
    return config;
  }

  std::string runDir(int64_t id) {
    return path("deepladder-work/single/" + std::to_string(id) + "-cli-tiny");
  }
};

}  // namespace

TEST_F(OrphanTest, KilledTrainTakesItsWorkerAlongAndResumeFinishesTheRun) {
  writeCorpus();
  write("run.toml", tinyConfig(dir_.string(), 120));
  auto train = start("deepladder", {"train", path("run.toml"), "--db", path("runs.db")});
  ASSERT_TRUE(waitForStep(*train, 1, 15));
  const std::optional<pid_t> worker = lockHolder(runDir(1), kWorkerLockName);
  ASSERT_TRUE(worker);
  ASSERT_EQ(::kill(train->pid(), SIGKILL), 0);
  train->wait();
  EXPECT_TRUE(endsWithin(*worker, 5)) << "the worker outlived its killed `train`";
  EXPECT_EQ(status(1), RunStatus::kRunning);  // what a killed `train` leaves behind
  const CommandResult resume = deepladder({"resume", "--db", path("runs.db"), "--quiet"});
  EXPECT_EQ(resume.code, 0) << resume.err << resume.out;
  auto db = storage::Database::open(path("runs.db"), true);
  EXPECT_EQ(db->run(1)->status, RunStatus::kFinished) << db->run(1)->error;
  const auto loss = db->readMetric(1, "train/loss");
  ASSERT_EQ(loss.size(), 120u);
  for (size_t i = 0; i < loss.size(); ++i) EXPECT_EQ(loss[i].step, int64_t(i + 1));
}

TEST_F(OrphanTest, ResumeLeavesALiveTrainAlone) {
  writeCorpus();
  write("run.toml", endlessConfig());
  auto train = start("deepladder", {"train", path("run.toml"), "--db", path("runs.db")});
  ASSERT_TRUE(waitForStep(*train, 1, 3));
  const CommandResult resume = deepladder({"resume", "--db", path("runs.db"), "--quiet"});
  EXPECT_EQ(resume.code, 0) << resume.err;
  EXPECT_NE(resume.out.find("nothing to resume"), std::string::npos) << resume.out;
  EXPECT_EQ(status(1), RunStatus::kRunning) << "a live `train` run was marked interrupted";
  const int64_t before = storage::Database::open(path("runs.db"), true)->run(1)->step;
  EXPECT_TRUE(waitForStep(*train, 1, before + 3)) << "the live run stopped training";
  train->terminate(SIGINT);
  train->runToEnd([](const std::string&) {});
  EXPECT_EQ(status(1), RunStatus::kInterrupted);
}

TEST_F(OrphanTest, TwoWorkersNeverTrainOneRunDirectory) {
  writeCorpus();
  write("run.toml", endlessConfig());
  const std::vector<std::string> args = {"--config", path("run.toml"), "--workdir",
                                         path("w"),  "--run-id",       "1"};
  auto first = start("deepladder-worker", args);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  std::string first_output;
  while (first_output.find("\"metric\"") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    first->poll(50, [&](const std::string& line) { first_output += line; });
  ASSERT_NE(first_output.find("\"metric\""), std::string::npos);
  auto second = start("deepladder-worker", args, {{"DEEPLADDER_LOCK_WAIT_S", "1"}});
  std::string second_output;
  const ProcessExit exit =
      second->runToEnd([&](const std::string& line) { second_output += line + "\n"; });
  EXPECT_TRUE(exit.exited && exit.code == 1) << exit.describe();
  EXPECT_NE(second_output.find("another worker (pid " + std::to_string(first->pid())),
            std::string::npos)
      << second_output;
  EXPECT_EQ(second_output.find("\"metric\""), std::string::npos) << "the second worker trained";
  EXPECT_FALSE(ended(first->pid()));
  first->terminate(SIGKILL);
  first->wait();
}
