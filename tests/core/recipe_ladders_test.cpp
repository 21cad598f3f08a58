// The growth recipe's options and the CPU ladders on it: the embedding and head decay is on by
// default and the recipe key turns it off (refused with adamw, which has no such groups);
// data.max_epochs reads and validates; quick.toml (`make run`) and growth-cpu-1h.toml are the
// paper's recipe with its per-arm constants, at least five rungs, vanilla vs operator_1 vs
// untied_grow, and the step-count constants scaled with the runs' steps.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.h"
#include "core/ladder/ladder_spec.h"
#include "core/run_config.h"

namespace deepladder::ladder {
namespace {

const std::string kSource = DEEPLADDER_SOURCE_DIR;

std::string tinyRecipeLadder(const std::string& arm_recipe_extra) {
  return R"(
[ladder]
name = "r"
recipe = "growth-paper"
[recipe]
width_per_depth = 8
head_dim = 8
seq_len = 32
vocab = 256
vocab_padded = 256
batch_tokens = 256
hidden_multiple = 8
[sizes]
depths = [3]
[arms.vanilla.recipe]
weight_decay = 0.05
beta1 = 0.8
beta2 = 0.95
eps = 1e-10
warmup = 2
warmdown = 0.5
m_out = 1
r = 0.5
s_emb = 0.1
u = 0.35
embed_lr_mult = 0.5
head_lr_mult = 0.1
g = 0.6
tpp = 1
)" + arm_recipe_extra;
}

TEST(RecipeOptions, EmbeddingAndHeadDecayIsOnUnlessTheRecipeKeyTurnsItOff) {
  const LadderSpec on = parseLadder(tinyRecipeLadder(""), "r.toml");
  ASSERT_EQ(on.runs.size(), 1u);
  EXPECT_TRUE(on.runs[0].config.train.embed_head_weight_decay);
  EXPECT_DOUBLE_EQ(on.runs[0].config.train.weight_decay, 0.05);
  const LadderSpec off = parseLadder(tinyRecipeLadder("embed_head_decay = false\n"), "r.toml");
  EXPECT_FALSE(off.runs[0].config.train.embed_head_weight_decay);
  EXPECT_NE(configHash(on.runs[0].config), configHash(off.runs[0].config));
  for (const auto& run : loadLadder(kSource + "/resources/ladders/growth-fineweb.toml").runs)
    EXPECT_TRUE(run.config.train.embed_head_weight_decay) << run.name;
}

TEST(RecipeOptions, EmbedHeadDecayOffNeedsMuonAndMaxEpochsIsRead) {
  try {
    parseRunConfigToml("[train]\noptimizer = \"adamw\"\nembed_head_weight_decay = false\n",
                       "run.toml");
    FAIL() << "accepted embed_head_weight_decay = false with adamw";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("train.embed_head_weight_decay"), std::string::npos)
        << e.what();
  }
  const RunConfig c = parseRunConfigToml(
      "[data]\nmax_epochs = 3\n[train]\noptimizer = \"muon\"\nembed_head_weight_decay = false\n",
      "run.toml");
  EXPECT_EQ(c.data.max_epochs, 3);
  EXPECT_FALSE(c.train.embed_head_weight_decay);
  EXPECT_EQ(RunConfig{}.data.max_epochs, 1);  // one pass: no data read twice unless allowed
  EXPECT_THROW(parseRunConfigToml("[data]\nmax_epochs = 0\n", "run.toml"), UserError);
}

void expectPaperRecipeOnCpu(const LadderSpec& spec, size_t rungs, size_t seeds,
                            size_t sweep_points = 1) {
  EXPECT_EQ(spec.arms, (std::vector<std::string>{"vanilla", "operator_1", "untied_grow"}));
  EXPECT_GE(spec.sizes.size(), 5u);
  EXPECT_EQ(spec.sizes.size(), rungs);
  ASSERT_EQ(spec.runs.size(), 3 * rungs * seeds * sweep_points);
  for (const PlannedRun& run : spec.runs) {
    const ModelConfig& m = run.config.model;
    const TrainConfig& t = run.config.train;
    EXPECT_EQ(run.config.data.kind, DataKind::builtin) << run.name;
    EXPECT_EQ(t.optimizer, OptimizerKind::muon) << run.name;
    EXPECT_EQ(t.schedule, Schedule::wsd) << run.name;
    EXPECT_EQ(t.min_lr_ratio, 0.0) << run.name;
    EXPECT_TRUE(t.embed_head_weight_decay) << run.name;
    EXPECT_TRUE(t.cautious_weight_decay) << run.name;
    EXPECT_EQ(t.grad_clip, 0.0) << run.name;
    EXPECT_EQ(m.mlp, MlpKind::swiglu) << run.name;
    EXPECT_TRUE(m.qk_norm && m.embed_norm) << run.name;
    EXPECT_FALSE(m.norm_gain) << run.name;
    EXPECT_EQ(m.init, InitScheme::recipe) << run.name;
    // The step-count constants scaled to the CPU runs: a warmup of at most 6 of >= 80 steps.
    EXPECT_LE(t.warmup_steps, 6) << run.name;
    EXPECT_GE(t.steps, 80) << run.name;
    if (run.arm == "untied_grow") {
      EXPECT_EQ(run.crossover_step, int64_t(0.6 * t.steps)) << run.name;
      EXPECT_LE(m.rewarm_steps, 6) << run.name;
    }
  }
  auto weightDecay = [&](const std::string& arm) {
    for (const PlannedRun& run : spec.runs)
      if (run.arm == arm) return run.config.train.weight_decay;
    return -1.0;
  };
  // The paper's per-arm constants.
  EXPECT_DOUBLE_EQ(weightDecay("vanilla"), 0.0707107);
  EXPECT_DOUBLE_EQ(weightDecay("operator_1"), 0.05);
  EXPECT_DOUBLE_EQ(weightDecay("untied_grow"), 0.0707107);
}

TEST(CpuLadders, QuickLadderIsThePapersRecipeInMiniature) {
  const LadderSpec spec = loadLadder(kSource + "/resources/ladders/quick.toml");
  expectPaperRecipeOnCpu(spec, 5, 1, 3);  // three learning-rate multipliers per rung
  double flops = 0;
  for (const PlannedRun& run : spec.runs) flops += run.flops;
  EXPECT_LT(flops, 4e13);  // sized from measured CPU time for about 12 minutes on 2 idle cores
}

TEST(CpuLadders, OneHourLadderHasMoreRungsAndTwoSeeds) {
  const LadderSpec spec = loadLadder(kSource + "/resources/ladders/growth-cpu-1h.toml");
  expectPaperRecipeOnCpu(spec, 6, 2);
  EXPECT_EQ(spec.seeds, (std::vector<int64_t>{1, 2}));
}

}  // namespace
}  // namespace deepladder::ladder
