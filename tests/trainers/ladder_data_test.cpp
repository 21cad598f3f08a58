// Tokens needed vs available, from the data itself: the CPU ladders on the built-in corpus read
// every run's windows in one pass; a split too small for a run's steps is refused (by the
// ladder check and by the worker itself) unless data.max_epochs allows the passes, and a run
// allowed them trains through its epochs.
#include "trainers/data/ladder_data.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/errors.h"
#include "tiny_run.h"

namespace deepladder::data {
namespace {

const std::string kSource = DEEPLADDER_SOURCE_DIR;

TEST(LadderData, CpuLaddersReadTheBuiltInCorpusOnce) {
  for (const std::string name : {"quick", "growth-cpu-1h"}) {
    const auto spec = ladder::loadLadder(kSource + "/resources/ladders/" + name + ".toml");
    const auto budgets = ladderDataBudgets(spec);
    ASSERT_EQ(budgets.size(), spec.runs.size());
    for (const auto& b : budgets) {
      ASSERT_TRUE(b.known) << b.source;
      EXPECT_EQ(b.budget.epochs(), 1) << name << " " << b.run << ": " << b.source;
    }
    EXPECT_NO_THROW(requireDataBudgets(budgets, name));
  }
}

TEST(LadderData, SquaringLaddersHaveNoTokenBudget) {
  // Their runs train on the tier's examples epoch after epoch; the LM corpus's size is not theirs.
  const auto spec = ladder::loadLadder(kSource + "/resources/ladders/squaring-e1-reentry.toml");
  const auto budgets = ladderDataBudgets(spec);
  ASSERT_EQ(budgets.size(), spec.runs.size());
  for (const auto& b : budgets) {
    EXPECT_FALSE(b.known) << b.run;
    EXPECT_NE(b.source.find("tier E1"), std::string::npos) << b.source;
  }
  EXPECT_NO_THROW(requireDataBudgets(budgets, "squaring-e1-reentry.toml"));
  EXPECT_FALSE(runDataBudget(spec.runs.front().config).known);
}

TEST(LadderData, WorkerRefusesARunThatWouldRepeatDataUnlessAllowed) {
  const auto dir = trainers::testing::makeWorkspace("epochs");
  std::ofstream(dir / "train.txt", std::ios::trunc) << trainers::testing::makeCorpus(80, 1);
  RunConfig config = trainers::testing::tinyConfig(dir);  // 8 rows of 33 tokens a step
  const int64_t windows = runDataBudget(config).budget.windows_available;
  ASSERT_GT(windows, 16);
  config.train.steps = windows / 8 + 2;  // one pass and a bit
  config.train.warmup_steps = 1;
  config.train.eval_every = config.train.steps;
  config.train.checkpoint_every = 0;
  trainers::TrainerOptions options;
  options.workdir = (dir / "refused").string();
  try {
    trainers::testing::runTiny(config, options);
    FAIL() << "trained through a second pass with max_epochs = 1";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("2 passes"), std::string::npos) << e.what();
  }
  EXPECT_THROW(requireDataBudgets({runDataBudget(config)}, "run.toml"), UserError);

  config.data.max_epochs = 2;
  EXPECT_NO_THROW(requireDataBudgets({runDataBudget(config)}, "run.toml"));
  options.workdir = (dir / "allowed").string();
  const auto run = trainers::testing::runTiny(config, options);
  EXPECT_EQ(run.outcome.status, trainers::TrainStatus::kFinished);
  EXPECT_EQ(run.outcome.steps, config.train.steps);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace deepladder::data
