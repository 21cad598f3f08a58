// Tests of the shipped recurrent squaring recipes: resources/runs/squaring-{e1,e3}-reentry.toml
// and resources/ladders/squaring-e1-reentry.toml load, pass validation and hold the recipe they
// describe (a tied looped core, one pass per squaring, per_t steps, straight-through re-entry,
// deep supervision, the benchmark's files from data_dir).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "core/errors.h"
#include "core/ladder/ladder_spec.h"
#include "core/options/admissibility.h"
#include "core/run_config.h"

using namespace deepladder;

namespace {

std::string resource(const std::string& name) {
  return std::string(DEEPLADDER_SOURCE_DIR) + "/resources/" + name;
}

void expectRecipe(const RunConfig& c, const std::string& tier) {
  EXPECT_EQ(c.task, Task::squaring);
  EXPECT_EQ(c.model.arch, Arch::pcc);
  EXPECT_EQ(c.model.core_mode, CoreMode::tied);
  EXPECT_EQ(c.model.passes, 1);
  EXPECT_EQ(c.squaring.tier, tier);
  EXPECT_EQ(c.squaring.iterations, IterationRule::per_t);
  EXPECT_EQ(c.squaring.reentry, Reentry::straight_through);
  EXPECT_DOUBLE_EQ(c.squaring.deep_supervision, 0.7);
  EXPECT_EQ(c.squaring.data_seed, 0);
}

}  // namespace

TEST(SquaringRecipeFiles, RunFilesLoadAndHoldTheRecipe) {
  const RunConfig e1 = loadRunConfigToml(resource("runs/squaring-e1-reentry.toml"));
  expectRecipe(e1, "E1");
  EXPECT_EQ(e1.squaring.data_dir, "data/e1-s45");
  const RunConfig e3 = loadRunConfigToml(resource("runs/squaring-e3-reentry.toml"));
  expectRecipe(e3, "E3");
  EXPECT_EQ(e3.squaring.data_dir, "data/e3-s45");
  // The same recipe on both tiers: only the tier, its files and the name differ.
  RunConfig same = e3;
  same.name = e1.name;
  same.squaring.tier = e1.squaring.tier;
  same.squaring.data_dir = e1.squaring.data_dir;
  EXPECT_EQ(configHash(same), configHash(e1));
}

TEST(SquaringRecipeFiles, LadderRunsTheRecipeOverCompute) {
  const ladder::LadderSpec spec = ladder::loadLadder(resource("ladders/squaring-e1-reentry.toml"));
  ASSERT_EQ(spec.runs.size(), 6u);  // 3 widths x 2 seeds
  std::set<double> budgets;
  for (const auto& run : spec.runs) {
    expectRecipe(run.config, "E1");
    EXPECT_EQ(run.config.squaring.data_dir, "data/e1-s45");
    budgets.insert(run.flops);
  }
  EXPECT_EQ(budgets.size(), 3u);  // one FLOP budget per width
}

TEST(SquaringRecipeFiles, EachRunSpendsItsRungsFlopBudget) {
  // The steps come from the squaring trainer's cost of a step (T re-entering loop rows per
  // prompt), not from the model's plain FLOPs per token, which undercount it about 1.85x.
  const ladder::LadderSpec spec = ladder::loadLadder(resource("ladders/squaring-e1-reentry.toml"));
  const std::map<std::string, double> budget{{"d32", 1e12}, {"d64", 3e12}, {"d96", 6e12}};
  for (const auto& run : spec.runs) {
    const double step = run.flops / static_cast<double>(run.steps);
    EXPECT_NEAR(run.flops, budget.at(run.size), step) << run.name;
  }
}

TEST(SquaringRecipeFiles, AblationFilesChangeOnlyWhatTheyName) {
  const RunConfig base = loadRunConfigToml(resource("runs/squaring-e1-reentry.toml"));
  RunConfig nods = loadRunConfigToml(resource("runs/squaring-e1-reentry-nods.toml"));
  EXPECT_DOUBLE_EQ(nods.squaring.deep_supervision, 0.0);  // re-entry alone
  nods.name = base.name;
  nods.squaring.deep_supervision = base.squaring.deep_supervision;
  EXPECT_EQ(configHash(nods), configHash(base));

  RunConfig muon = loadRunConfigToml(resource("runs/squaring-e1-reentry-muon.toml"));
  EXPECT_EQ(muon.train.optimizer, OptimizerKind::muon);
  muon.name = base.name;
  muon.train.optimizer = base.train.optimizer;
  muon.train.lr = base.train.lr;
  muon.train.embed_lr = base.train.embed_lr;
  muon.train.head_lr = base.train.head_lr;
  muon.train.beta1 = base.train.beta1;
  EXPECT_EQ(configHash(muon), configHash(base));
}

TEST(SquaringRecipeFiles, BadValuesUnderAFlopBudgetAreNamedAtTheirLine) {
  // A rung's steps come from its cost per step, which needs a known tier and a batch: both are
  // refused at their line before the budget is divided by them.
  std::ifstream file(resource("ladders/squaring-e1-reentry.toml"));
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  auto errorWith = [&](const std::string& from, const std::string& to) {
    std::string changed = text;
    changed.replace(changed.find(from), from.size(), to);
    try {
      ladder::parseLadder(changed, "sq.toml");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string tier = errorWith("tier = \"E1\"", "tier = \"E9\"");
  EXPECT_NE(tier.find("sq.toml:"), std::string::npos) << tier;
  EXPECT_NE(tier.find("squaring.tier"), std::string::npos) << tier;
  const std::string batch = errorWith("batch_size = 128", "batch_size = 0");
  EXPECT_NE(batch.find("sq.toml:"), std::string::npos) << batch;
  EXPECT_NE(batch.find("train.batch_size"), std::string::npos) << batch;
  EXPECT_EQ(batch.find("nan"), std::string::npos) << batch;
}

// The admissibility labels of the shipped recipes: deep supervision on computed intermediates is
// not admissible; the answer-only recipes, the positive control's included, are.
TEST(SquaringRecipeFiles, AdmissibilityOfTheShippedRecipes) {
  EXPECT_FALSE(options::admissibility(loadRunConfigToml(resource("runs/squaring-e1-reentry.toml")))
                   .admissible);
  EXPECT_TRUE(
      options::admissibility(loadRunConfigToml(resource("runs/squaring-e1-reentry-nods.toml")))
          .admissible);
  const RunConfig best = loadRunConfigToml(resource("runs/squaring-e1-reentry-fw.toml"));
  EXPECT_TRUE(options::admissibility(best).admissible);
  EXPECT_TRUE(best.squaring.full_width_answer);
  EXPECT_DOUBLE_EQ(best.squaring.deep_supervision, 0.0);
  const RunConfig control = loadRunConfigToml(resource("runs/squaring-c1-control.toml"));
  EXPECT_TRUE(options::admissibility(control).admissible);
  EXPECT_EQ(control.squaring.tier, "C1");
  EXPECT_EQ(control.model.arch, Arch::pcc);
  EXPECT_EQ(control.model.core_mode, CoreMode::tied);
  EXPECT_EQ(control.squaring.iterations, IterationRule::per_t);
  EXPECT_EQ(control.squaring.reentry, Reentry::straight_through);
  EXPECT_TRUE(control.squaring.full_width_answer);  // the training answer, on W places
}
