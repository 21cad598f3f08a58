// Checkpoints: resuming reproduces the uninterrupted run's losses; a corrupt newest checkpoint
// is passed over (with an event) for the previous one; only the newest keep_checkpoints remain;
// every emitted sha256 matches its file.
#include "trainers/checkpoint.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/errors.h"
#include "core/sha256.h"
#include "tiny_run.h"

namespace deepladder::trainers {
namespace {

using testing::makeWorkspace;
using testing::runTiny;
using testing::tinyConfig;

void expectSameLosses(const std::map<int64_t, double>& reference,
                      const std::map<int64_t, double>& resumed, int64_t after) {
  int64_t compared = 0;
  for (const auto& [step, loss] : resumed) {
    if (step <= after) continue;
    ASSERT_TRUE(reference.count(step)) << "step " << step;
    EXPECT_NEAR(loss, reference.at(step), 1e-5 * std::abs(reference.at(step))) << "step " << step;
    ++compared;
  }
  EXPECT_EQ(compared, 20 - after);
}

class Resume : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = makeWorkspace("resume");
    config = tinyConfig(dir);  // 20 steps, checkpoint every 5, keep 3
    TrainerOptions options;
    options.workdir = (dir / "uninterrupted").string();
    reference = runTiny(config, options);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  // Runs to step 10 in `workdir` (stopping like a killed worker: no Done).
  void runFirstHalf(const std::string& workdir) {
    TrainerOptions options;
    options.workdir = workdir;
    options.max_steps = 10;
    const auto first = runTiny(config, options);
    ASSERT_EQ(first.outcome.status, TrainStatus::kStopped);
    ASSERT_TRUE(first.all<protocol::Done>().empty());
  }

  std::filesystem::path dir;
  RunConfig config;
  testing::Collected reference;
};

TEST_F(Resume, ResumingAtStep10ReproducesTheUninterruptedLossCurve) {
  const std::string workdir = (dir / "interrupted").string();
  runFirstHalf(workdir);
  TrainerOptions options;
  options.workdir = workdir;
  options.resume = true;
  const auto resumed = runTiny(config, options);
  EXPECT_EQ(resumed.all<protocol::Hello>().at(0).resumed_from, 10);
  expectSameLosses(reference.curve("train/loss"), resumed.curve("train/loss"), 10);
  EXPECT_NEAR(resumed.curve("val/loss").at(20), reference.curve("val/loss").at(20), 1e-5);
  const auto done = resumed.all<protocol::Done>();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].tokens, reference.all<protocol::Done>().at(0).tokens);
  EXPECT_DOUBLE_EQ(done[0].flops, reference.all<protocol::Done>().at(0).flops);
}

TEST_F(Resume, CorruptNewestCheckpointFallsBackToThePreviousOne) {
  const std::string workdir = (dir / "corrupt").string();
  runFirstHalf(workdir);
  {
    std::fstream file(checkpointPath(workdir, 10), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(200);
    file.write("garbage!", 8);
  }
  TrainerOptions options;
  options.workdir = workdir;
  options.resume = true;
  const auto resumed = runTiny(config, options);
  EXPECT_EQ(resumed.all<protocol::Hello>().at(0).resumed_from, 5);
  const auto events = resumed.all<protocol::Event>();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].detail.find("ckpt-10.pt"), std::string::npos) << events[0].detail;
  EXPECT_NE(events[0].detail.find("checksum"), std::string::npos) << events[0].detail;
  expectSameLosses(reference.curve("train/loss"), resumed.curve("train/loss"), 5);
}

TEST_F(Resume, KeepsTheNewestCheckpointsAndEveryChecksumMatchesItsFile) {
  const auto records = reference.all<protocol::Checkpoint>();
  ASSERT_EQ(records.size(), 4u);  // steps 5, 10, 15, 20
  const auto kept = listCheckpoints((dir / "uninterrupted").string());
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0].step, 20);
  EXPECT_EQ(kept[2].step, 10);
  for (const auto& record : records) {
    if (record.step >= 10) {
      EXPECT_EQ(sha256File(record.path), record.sha256);
    }
  }
}

TEST_F(Resume, ResumeOverTrainingDataCutIntoOtherWindowsIsRefused) {
  // The checkpoint records the sampler's epoch size (20 steps x 8 rows = 160 windows of the
  // budget prefix); data that no longer holds them would be read in another permutation.
  // (Data smaller than the budget passes the data check only when epochs are allowed.)
  config.data.max_epochs = 3;
  const std::string workdir = (dir / "changed").string();
  runFirstHalf(workdir);
  std::ofstream(dir / "train.txt", std::ios::trunc) << testing::makeCorpus(100, 1);
  TrainerOptions options;
  options.workdir = workdir;
  options.resume = true;
  try {
    runTiny(config, options);
    FAIL() << "resumed over changed data";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("160 windows"), std::string::npos) << message;
    EXPECT_NE(message.find("the training data changed"), std::string::npos) << message;
  }
}

TEST_F(Resume, CheckpointOfAnotherConfigIsNotUsed) {
  RunConfig other = config;
  other.train.lr = 1e-3;
  TrainerOptions options;
  options.workdir = (dir / "uninterrupted").string();
  options.resume = true;
  options.max_steps = 1;
  const auto run = runTiny(other, options);
  EXPECT_EQ(run.all<protocol::Hello>().at(0).resumed_from, -1);
  EXPECT_FALSE(run.all<protocol::Event>().empty());
}

}  // namespace
}  // namespace deepladder::trainers
