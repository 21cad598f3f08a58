// Ladder specs: grid expansion, budget rules, arm overrides, and every error path.
#include "core/ladder/ladder_spec.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.h"
#include "core/flop_model.h"

using namespace deepladder;
using namespace deepladder::ladder;

namespace {

const char* kDepthLadder = R"(
[ladder]
name = "t"
seeds = [1, 2]
[model]
seq_len = 32
[train]
batch_size = 4
warmup_steps = 10
[sizes]
depths = [2, 3]
width_per_depth = 32
head_dim = 16
[budget]
rule = "tokens_per_param"
tokens_per_param = 10
[arms.vanilla]
[arms.swiglu]
model = { mlp = "swiglu" }
train = { lr = 1e-3 }
)";

std::string errorOf(const std::string& text) {
  try {
    parseLadder(text, "ladder.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(LadderSpec, DepthLadderExpandsArmsSizesSeeds) {
  LadderSpec spec = parseLadder(kDepthLadder, "ladder.toml");
  ASSERT_EQ(spec.runs.size(), 2u * 2u * 2u);
  EXPECT_EQ(spec.arms, (std::vector<std::string>{"vanilla", "swiglu"}));
  EXPECT_EQ(spec.sizes, (std::vector<std::string>{"d2", "d3"}));
  const PlannedRun& first = spec.runs[0];
  EXPECT_EQ(first.name, "vanilla-d2-s1");
  EXPECT_EQ(first.config.model.d_model, 64);
  EXPECT_EQ(first.config.model.n_layer, 2);
  EXPECT_EQ(first.config.model.n_head, 4);
  EXPECT_EQ(spec.runs[1].seed, 2);
  EXPECT_EQ(spec.runs[1].config.train.seed, 2);
  const PlannedRun& swiglu = spec.runs[4];
  EXPECT_EQ(swiglu.arm, "swiglu");
  EXPECT_EQ(swiglu.config.model.mlp, MlpKind::swiglu);
  EXPECT_DOUBLE_EQ(swiglu.config.train.lr, 1e-3);
  EXPECT_EQ(first.config.model.mlp, MlpKind::gelu);
}

TEST(LadderSpec, TokensPerParamBudgetSetsSteps) {
  LadderSpec spec = parseLadder(kDepthLadder, "ladder.toml");
  for (const PlannedRun& run : spec.runs) {
    const double target = 10.0 * countParameters(run.config.model).total;
    EXPECT_EQ(run.config.train.steps, std::llround(target / (4 * 32)));
    EXPECT_EQ(run.tokens, run.config.train.steps * 4 * 32);
    EXPECT_DOUBLE_EQ(run.flops, run.tokens * flopsPerToken(run.config.model));
    EXPECT_LE(run.config.train.warmup_steps, run.config.train.steps);
  }
}

TEST(LadderSpec, FlopBudgetPerRung) {
  std::string text = kDepthLadder;
  text.replace(text.find("rule = \"tokens_per_param\"\ntokens_per_param = 10"),
               std::string("rule = \"tokens_per_param\"\ntokens_per_param = 10").size(),
               "rule = \"flops\"\nflops = [1e11, 1e12]");
  LadderSpec spec = parseLadder(text, "ladder.toml");
  EXPECT_NEAR(spec.runs[0].flops, 1e11, 1e11 * 0.02);
  EXPECT_NEAR(spec.runs[2].flops, 1e12, 1e12 * 0.02);
}

TEST(LadderSpec, ExplicitSizes) {
  LadderSpec spec = parseLadder(R"(
[ladder]
name = "x"
[sizes]
list = [ { name = "small", d_model = 32, n_layer = 1, n_head = 2 },
         { name = "big", d_model = 64, n_layer = 2, n_head = 4, mlp = "swiglu" } ]
[budget]
rule = "tokens"
tokens = 100000
)",
                                "l.toml");
  ASSERT_EQ(spec.runs.size(), 2u);
  EXPECT_EQ(spec.runs[1].config.model.mlp, MlpKind::swiglu);
  EXPECT_EQ(spec.runs[0].arm, "vanilla");
  EXPECT_EQ(spec.runs[0].tokens, 98 * 16 * 64);  // round(100000 / 1024) = 98 steps
}

TEST(LadderSpec, ErrorsNameFileLineAndKey) {
  EXPECT_NE(errorOf("[ladder]\nname = \"x\"\n[sizes]\n").find("sizes.list"), std::string::npos);
  std::string both =
      errorOf("[ladder]\nname = \"x\"\n[sizes]\ndepths = [2]\nlist = [ { name = \"a\" } ]\n");
  EXPECT_NE(both.find("not both"), std::string::npos) << both;
  std::string arm = errorOf(std::string(kDepthLadder) + "[arms.bad]\nmodle = { mlp = \"gelu\" }\n");
  EXPECT_NE(arm.find("arms.bad.modle"), std::string::npos) << arm;
  EXPECT_NE(arm.find("ladder.toml:"), std::string::npos) << arm;
  std::string arm_value =
      errorOf(std::string(kDepthLadder) + "[arms.bad]\nmodel = { mlp = \"relu\" }\n");
  EXPECT_NE(arm_value.find("arms.bad.model.mlp"), std::string::npos) << arm_value;
  std::string three = kDepthLadder;
  three.replace(three.find("rule = \"tokens_per_param\"\ntokens_per_param = 10"),
                std::string("rule = \"tokens_per_param\"\ntokens_per_param = 10").size(),
                "rule = \"flops\"\nflops = [1e9, 1e10, 1e11]");
  std::string flops = errorOf(three);
  EXPECT_NE(flops.find("budget.flops"), std::string::npos) << flops;
  EXPECT_NE(flops.find("3 entries for 2 sizes"), std::string::npos) << flops;
  std::string backend = errorOf(std::string(kDepthLadder) + "[resources]\nbackend = \"k8s\"\n");
  EXPECT_NE(backend.find("resources.backend"), std::string::npos) << backend;
  EXPECT_NE(errorOf("[ladder]\n[sizes]\ndepths=[2]\n").find("ladder.name"), std::string::npos);
}

TEST(LadderSpec, ArmPresetsApplyByNameOrKey) {
  LadderSpec spec = parseLadder(R"(
[ladder]
name = "arms"
[model]
d_model = 128
n_head = 4
[sizes]
list = [ { name = "d6", n_layer = 6 } ]
[budget]
rule = "tokens"
tokens = 100000
[arms.untied_grow]
[arms.mine]
preset = "loop_2"
model = { alpha = 0.5 }
)",
                                "l.toml");
  ASSERT_EQ(spec.runs.size(), 2u);
  EXPECT_EQ(spec.runs[0].config.model.arch, Arch::pcc);
  EXPECT_EQ(spec.runs[0].config.model.grow_passes, 4);
  EXPECT_EQ(spec.runs[0].depth, 6);
  EXPECT_EQ(spec.runs[0].executed_depth, 8);
  EXPECT_EQ(spec.runs[0].executed_depth_after_growth, 12);
  EXPECT_EQ(spec.runs[0].crossover_step, int64_t(0.75 * spec.runs[0].config.train.steps));
  EXPECT_EQ(spec.runs[1].config.model.core_mode, CoreMode::tied);
  EXPECT_DOUBLE_EQ(spec.runs[1].config.model.alpha, 0.5);
  EXPECT_EQ(spec.runs[1].crossover_step, -1);
  const std::string e = errorOf(std::string(kDepthLadder) + "[arms.x]\npreset = \"loop_9\"\n");
  EXPECT_NE(e.find("arms.x.preset"), std::string::npos) << e;
  EXPECT_NE(e.find("untied_grow"), std::string::npos) << e;
}

TEST(LadderSpec, GrowthFinewebPresetIsPaperExact) {
  // resources/ladders/growth-fineweb.toml against the issue's hand checks.
  const LadderSpec spec =
      loadLadder(std::string(DEEPLADDER_SOURCE_DIR) + "/resources/ladders/growth-fineweb.toml");
  EXPECT_EQ(spec.runs.size(), 8u + 7u + 8u + 7u * 5u);  // vanilla, operator_1 to d20; rest to d18
  auto find = [&](const std::string& name) -> const PlannedRun& {
    for (const auto& r : spec.runs)
      if (r.name == name) return r;
    throw std::runtime_error("no run " + name);
  };
  EXPECT_EQ(find("vanilla-d6-s1").params, 119734272);
  EXPECT_EQ(find("vanilla-d6-s1").config.train.steps, 1142);
  EXPECT_EQ(find("vanilla-d12-s1").config.train.steps, 4714);
  const PlannedRun& grow = find("untied_grow-d6-s1");
  EXPECT_EQ(grow.config.train.steps, 1826);
  EXPECT_EQ(grow.crossover_step, 1095);
  EXPECT_EQ(find("untied_grow-d12-s1").config.train.steps, 8311);
  EXPECT_EQ(grow.config.model.d_model, 768);
  EXPECT_EQ(grow.config.model.n_head, 6);
  EXPECT_EQ(grow.config.model.vocab_padded, 50304);
  EXPECT_EQ(grow.config.train.optimizer, OptimizerKind::muon);
  EXPECT_EQ(grow.config.train.batch_size, 256);
  EXPECT_DOUBLE_EQ(grow.config.train.head_lr, 0.16 * grow.config.train.lr);
  EXPECT_DOUBLE_EQ(find("vanilla-d8-s1").config.train.lr, 0.04);
  EXPECT_DOUBLE_EQ(find("loop_2-d6-s1").config.model.alpha, 0.707107);
  EXPECT_EQ(find("deep_vanilla-d8-s1").executed_depth, 11);
}

TEST(LadderSpec, GrowthCpuReplicaParsesAndPlansTheRecipeAtCpuScale) {
  // resources/ladders/growth-cpu.toml: the recipe at width 12 d, depths 3-5, three arms.
  const LadderSpec spec =
      loadLadder(std::string(DEEPLADDER_SOURCE_DIR) + "/resources/ladders/growth-cpu.toml");
  ASSERT_EQ(spec.runs.size(), 9u);
  EXPECT_EQ(spec.arms, (std::vector<std::string>{"vanilla", "operator_1", "untied_grow"}));
  for (const auto& run : spec.runs) {
    const ModelConfig& m = run.config.model;
    EXPECT_EQ(m.d_model, 12 * run.depth) << run.name;
    EXPECT_EQ(m.n_head, run.depth) << run.name;
    EXPECT_EQ(m.seq_len, 128);
    EXPECT_EQ(m.vocab_size, 256);
    EXPECT_EQ(m.mlp_hidden % 12, 0) << run.name;
    EXPECT_FALSE(m.norm_gain);
    EXPECT_TRUE(m.qk_norm && m.embed_norm);
    EXPECT_EQ(m.init, InitScheme::recipe);
    EXPECT_EQ(run.config.data.kind, DataKind::builtin);
    EXPECT_EQ(run.config.train.optimizer, OptimizerKind::muon);
    EXPECT_EQ(run.config.train.batch_size, 32);  // 4096 tokens of 128
    EXPECT_EQ(run.config.train.grad_clip, 0.0);
    EXPECT_GT(run.config.train.lr, 0.04) << run.name;  // smaller than d8: a larger rate
    EXPECT_GT(run.config.train.steps, 0);
    // The recipe's N is the model's parameter count (no gains, padded rows = vocab here).
    if (run.arm != "untied_grow") {
      EXPECT_EQ(countParameters(m).total, run.params) << run.name;
    }
  }
  for (const auto& run : spec.runs) {
    if (run.arm != "untied_grow") continue;
    EXPECT_EQ(run.crossover_step, int64_t(0.6 * run.config.train.steps)) << run.name;
    EXPECT_EQ(run.config.model.grow_passes, 4);
    EXPECT_EQ(run.config.model.rewarm_steps, 40);
  }
}

TEST(LadderSpec, FlopBudgetCountsBothGrowthPhases) {
  const LadderSpec spec = parseLadder(R"(
[ladder]
name = "g"
[model]
d_model = 128
n_head = 4
[sizes]
list = [ { name = "d6", n_layer = 6 } ]
[budget]
rule = "flops"
flops = 1e13
[arms.vanilla]
[arms.untied_grow]
)",
                                      "l.toml");
  for (const auto& run : spec.runs) EXPECT_NEAR(run.flops, 1e13, 0.01e13) << run.name;
}
