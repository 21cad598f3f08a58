// Sweeps in a ladder: the grid's counts and names, per-arm lists, the refusals (unknown option,
// empty list, bad value) with file and field, and run names read back into their points.
#include "core/ladder/sweep.h"

#include <gtest/gtest.h>

#include <set>

#include "core/errors.h"
#include "core/ladder/ladder_spec.h"

using namespace deepladder;
using namespace deepladder::ladder;

namespace {

std::string ladderWith(const std::string& sweep) {
  return R"(
[ladder]
name = "t"
seeds = [1, 2]
[model]
seq_len = 32
[train]
batch_size = 4
[sizes]
depths = [2, 3]
width_per_depth = 32
head_dim = 16
[budget]
rule = "tokens"
tokens = 2048
[arms.vanilla]
[arms.swiglu]
model = { mlp = "swiglu" }
)" + sweep;
}

std::string errorOf(const std::string& text) {
  try {
    parseLadder(text, "ladder.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Sweep, ExpandsArmsSizesSeedsAndPointsWithThePointInEveryName) {
  const LadderSpec spec = parseLadder(ladderWith(R"(
[sweep]
train.lr_mult = [0.25, 0.5, 1, 2]
)"),
                                      "ladder.toml");
  ASSERT_EQ(spec.runs.size(), 2u * 2u * 2u * 4u);
  EXPECT_EQ(spec.runs[0].name, "vanilla-d2-s1-lr_mult0.25");
  EXPECT_EQ(spec.runs[1].name, "vanilla-d2-s2-lr_mult0.25");
  EXPECT_EQ(spec.runs[2].name, "vanilla-d2-s1-lr_mult0.5");
  std::set<std::string> names;
  for (const PlannedRun& run : spec.runs) {
    names.insert(run.name);
    EXPECT_EQ(run.config.name, run.name);
    ASSERT_EQ(run.sweep_point.size(), 1u);
    EXPECT_EQ(run.sweep_point[0].first, "train.lr_mult");
    EXPECT_EQ(run.config.train.lr_mult, std::get<double>(run.sweep_point[0].second));
    EXPECT_EQ(run.name, sweepRunName(run.arm, run.size, run.seed, run.sweep_label));
  }
  EXPECT_EQ(names.size(), spec.runs.size());
  EXPECT_EQ(spec.runs[6].name, "vanilla-d2-s1-lr_mult2");
  EXPECT_EQ(spec.runs[6].config.train.lr_mult, 2.0);
}

TEST(Sweep, SeveralOptionsSweepTheirProduct) {
  const LadderSpec spec = parseLadder(ladderWith(R"(
[sweep]
train.lr_mult = [0.5, 1]
train.beta2 = [0.95, 0.99, 0.999]
)"),
                                      "ladder.toml");
  ASSERT_EQ(spec.runs.size(), 2u * 2u * 2u * 6u);
  std::set<std::string> labels;
  for (const PlannedRun& run : spec.runs) labels.insert(run.sweep_label);
  EXPECT_EQ(labels.size(), 6u);
  EXPECT_TRUE(labels.count("lr_mult0.5-beta20.99") || labels.count("beta20.99-lr_mult0.5"));
}

TEST(Sweep, AnArmOverridesItsOwnList) {
  const LadderSpec spec = parseLadder(ladderWith(R"(
[sweep]
train.lr_mult = [0.5, 1, 2]
[arms.swiglu.sweep]
train.lr_mult = [0.25, 0.5]
)"),
                                      "ladder.toml");
  int vanilla = 0, swiglu = 0;
  std::set<double> swiglu_values;
  for (const PlannedRun& run : spec.runs) {
    (run.arm == "vanilla" ? vanilla : swiglu)++;
    if (run.arm == "swiglu") swiglu_values.insert(run.config.train.lr_mult);
  }
  EXPECT_EQ(vanilla, 2 * 2 * 3);
  EXPECT_EQ(swiglu, 2 * 2 * 2);
  EXPECT_EQ(swiglu_values, (std::set<double>{0.25, 0.5}));
  EXPECT_EQ(describeSweep(spec.sweeps.at("swiglu")), "train.lr_mult = 0.25, 0.5");
}

TEST(Sweep, WithoutASweepNamesAreUnchanged) {
  const LadderSpec spec = parseLadder(ladderWith(""), "ladder.toml");
  ASSERT_EQ(spec.runs.size(), 8u);
  EXPECT_EQ(spec.runs[0].name, "vanilla-d2-s1");
  EXPECT_TRUE(spec.runs[0].sweep_label.empty());
  EXPECT_TRUE(spec.sweeps.at("vanilla").empty());
}

TEST(Sweep, RefusesAnUnknownOptionNamingTheFileAndField) {
  const std::string e = errorOf(ladderWith("[sweep]\ntrain.lr_mul = [0.5, 1]\n"));
  EXPECT_NE(e.find("ladder.toml"), std::string::npos) << e;
  EXPECT_NE(e.find("sweep.train.lr_mul"), std::string::npos) << e;
  EXPECT_NE(e.find("lr_mult"), std::string::npos) << e;  // the nearest key
  const std::string section = errorOf(ladderWith("[sweep]\ntrian.lr = [0.5, 1]\n"));
  EXPECT_NE(section.find("no section"), std::string::npos) << section;
}

TEST(Sweep, RefusesAnEmptyList) {
  const std::string e = errorOf(ladderWith("[sweep]\ntrain.lr_mult = []\n"));
  EXPECT_NE(e.find("ladder.toml"), std::string::npos) << e;
  EXPECT_NE(e.find("sweep.train.lr_mult"), std::string::npos) << e;
  EXPECT_NE(e.find("empty"), std::string::npos) << e;
}

TEST(Sweep, RefusesBadValuesNamingTheField) {
  const std::string range = errorOf(ladderWith("[sweep]\ntrain.lr_mult = [0.5, -1]\n"));
  EXPECT_NE(range.find("sweep.train.lr_mult"), std::string::npos) << range;
  EXPECT_NE(range.find("range"), std::string::npos) << range;
  const std::string type = errorOf(ladderWith("[sweep]\ntrain.lr_mult = [\"big\"]\n"));
  EXPECT_NE(type.find("sweep.train.lr_mult"), std::string::npos) << type;
  const std::string twice = errorOf(ladderWith("[sweep]\ntrain.lr_mult = [1, 1.0]\n"));
  EXPECT_NE(twice.find("twice"), std::string::npos) << twice;
  const std::string not_list = errorOf(ladderWith("[sweep]\ntrain.lr_mult = 0.5\n"));
  EXPECT_NE(not_list.find("list"), std::string::npos) << not_list;
  const std::string seed = errorOf(ladderWith("[sweep]\ntrain.seed = [1, 2]\n"));
  EXPECT_NE(seed.find("seeds"), std::string::npos) << seed;
  const std::string arm = errorOf(ladderWith("[arms.vanilla.sweep]\nmodel.mlp = [\"relu\"]\n"));
  EXPECT_NE(arm.find("arms.vanilla.sweep.model.mlp"), std::string::npos) << arm;
}

TEST(Sweep, AValueThatBreaksARunIsRefusedAtTheSweepsLine) {
  // boundary_source 5 is not an earlier block of 2 or 3: validate() names the sweep as the
  // value's origin.
  const std::string e = errorOf(ladderWith("[sweep]\nmodel.boundary_source = [1, 5]\n"));
  EXPECT_NE(e.find("sweep.model.boundary_source"), std::string::npos) << e;
  EXPECT_NE(e.find("earlier block"), std::string::npos) << e;
}

// The budget turns each rung's tokens into train.steps after the sweep, so
// steps4 and steps8 trained the same 8 steps while `plan` counted them apart.
TEST(Sweep, RefusesSweepingStepsWhichTheBudgetSets) {
  const std::string e = errorOf(ladderWith("[sweep]\ntrain.steps = [4, 8]\n"));
  EXPECT_NE(e.find("ladder.toml:20"), std::string::npos) << e;
  EXPECT_NE(e.find("sweep.train.steps"), std::string::npos) << e;
  EXPECT_NE(e.find("[budget] (rule \"tokens\") sets train.steps"), std::string::npos) << e;
  const std::string arm = errorOf(ladderWith("[arms.swiglu.sweep]\ntrain.steps = [4, 8]\n"));
  EXPECT_NE(arm.find("arms.swiglu.sweep.train.steps"), std::string::npos) << arm;
}

// The options a sweep may not move are the ones [sizes] sets: a depth ladder's d_model, n_layer
// and n_head, an explicit list's own keys (and no others).
TEST(Sweep, RefusesSweepingWhatSizesSetNamingTheSize) {
  for (const char* key :
       {"model.n_layer = [2, 4]", "model.d_model = [64, 128]", "model.n_head = [2, 4]"}) {
    const std::string e = errorOf(ladderWith(std::string("[sweep]\n") + key + "\n"));
    const std::string option = std::string(key).substr(0, std::string(key).find(' '));
    EXPECT_NE(e.find("sweep." + option), std::string::npos) << e;
    EXPECT_NE(e.find("[sizes] sets " + option + " of each rung (size \"d2\""), std::string::npos)
        << e;
  }
  const std::string explicit_list = R"(
[ladder]
name = "t"
[model]
seq_len = 32
n_layer = 2
[train]
batch_size = 4
[sizes]
[[sizes.list]]
name = "w64"
d_model = 64
n_head = 2
[budget]
rule = "tokens"
tokens = 2048
)";
  const std::string e = errorOf(explicit_list + "[sweep]\nmodel.d_model = [32, 128]\n");
  EXPECT_NE(e.find("[sizes] sets model.d_model of each rung (size \"w64\" at sizes.list[0].name)"),
            std::string::npos)
      << e;
  // n_layer comes from [model], not from [sizes]: a depth sweep at this width is what it says.
  const LadderSpec depth = parseLadder(explicit_list + "[sweep]\nmodel.n_layer = [2, 3]\n", "x");
  ASSERT_EQ(depth.runs.size(), 2u);
  EXPECT_EQ(depth.runs[1].config.model.n_layer, 3);
}

// `[arms.ghost.sweep]` alone made an arm "ghost" of the ladder's defaults.
TEST(Sweep, RefusesAnArmDeclaredOnlyByItsSweepListingTheArms) {
  const std::string e = errorOf(ladderWith("[arms.ghost.sweep]\ntrain.lr_mult = [0.5, 1]\n"));
  EXPECT_NE(e.find("arms.ghost.sweep"), std::string::npos) << e;
  EXPECT_NE(e.find("arm \"ghost\" is declared by nothing but its sweep table"), std::string::npos)
      << e;
  EXPECT_NE(e.find("the file's arms: vanilla, swiglu"), std::string::npos) << e;
  // Declared with a header of its own (even an empty one), it is an arm.
  const LadderSpec spec = parseLadder(
      ladderWith("[arms.ghost]\n[arms.ghost.sweep]\ntrain.lr_mult = [0.5, 1]\n"), "ladder.toml");
  EXPECT_EQ(spec.arms.size(), 3u);
  const LadderSpec own =
      parseLadder(ladderWith("[arms.vanilla.sweep]\ntrain.lr_mult = [0.5, 1]\n"), "ladder.toml");
  EXPECT_EQ(own.arms.size(), 2u);
}

// Seven options of ten values each (1e7 points) ran 43 s and 3.4 GB before
// std::bad_alloc; the product is counted before a point is made.
TEST(Sweep, RefusesAHugeProductBeforeExpandingIt) {
  const std::string sweep = R"(
[sweep]
train.lr_mult = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
train.beta1 = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9]
train.beta2 = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9]
train.weight_decay = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9]
train.min_lr_ratio = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9]
train.decay_fraction = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9]
train.grad_clip = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9]
)";
  const std::string e = errorOf(ladderWith(sweep));
  EXPECT_NE(e.find("sweep.train.lr_mult"), std::string::npos) << e;
  EXPECT_NE(e.find("is 80000000 runs (at most 10000)"), std::string::npos) << e;
  EXPECT_NE(e.find("this sweep alone has 10000000 points"), std::string::npos) << e;
  Sweep seven;
  for (int axis = 0; axis < 30; ++axis)
    seven.push_back({nullptr, std::vector<options::OptionValue>(10)});
  EXPECT_DOUBLE_EQ(sweepPointCount(seven), 1e30);  // counted, never made
}

TEST(Sweep, RunNamesGiveTheirPointBack) {
  EXPECT_EQ(sweepLabelOfRunName("vanilla-d5-s1-lr_mult0.5", "vanilla", "d5", 1), "lr_mult0.5");
  EXPECT_EQ(sweepLabelOfRunName("vanilla-d5-s1", "vanilla", "d5", 1), "");
  EXPECT_EQ(sweepLabelOfRunName("a-b-d5-s12-lr_mult2", "a-b", "d5", 12), "lr_mult2");
  EXPECT_EQ(sweepLabelOfRunName("vanilla-d5-s1-retry", "vanilla", "d5", 1), "");
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(parseSweepLabel("lr_mult0.5"), (Pairs{{"lr_mult", "0.5"}}));
  EXPECT_EQ(parseSweepLabel("lr_mult1e-05-beta20.99"),
            (Pairs{{"lr_mult", "1e-05"}, {"beta2", "0.99"}}));
  EXPECT_EQ(parseSweepLabel("alpha-1-mlpswiglu"), (Pairs{{"alpha", "-1"}, {"mlp", "swiglu"}}));
  EXPECT_EQ(parseSweepLabel(""), Pairs{});
}
