// One sweep point past an edge (core/ladder/sweep_extension.h): the next value continues the
// axis's outer step (geometric for a geometric grid, arithmetic otherwise), integers round,
// values are clamped to the option's range, and the candidate is planned like the ladder's own
// runs with the other axes at the chosen point's values; it is offered once, until taken.
#include "core/ladder/sweep_extension.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/ladder/candidates.h"

using namespace deepladder;
using namespace deepladder::ladder;

namespace {

const char* kSweptLadder = R"(
[ladder]
name = "t"
seeds = [3, 4]
[model]
seq_len = 32
[train]
batch_size = 4
[sizes]
depths = [2, 4]
width_per_depth = 16
head_dim = 16
[budget]
rule = "tokens"
tokens = 4096
[sweep]
train.lr_mult = [0.5, 1, 2]
train.beta2 = [0.95, 0.98]
[arms.vanilla]
[arms.wide]
model = { mlp = "swiglu" }
)";

const options::OptionSpec& option(std::string_view qualified) {
  const options::OptionSpec* o = options::findOption(qualified);
  EXPECT_NE(o, nullptr) << qualified;
  return *o;
}

double number(const options::OptionValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return static_cast<double>(std::get<int64_t>(v));
}

}  // namespace

TEST(SweepExtension, NextValueContinuesTheOuterStep) {
  options::OptionValue v;
  ASSERT_TRUE(valueBeyondEdge(option("train.lr_mult"), {0.25, 0.5, 1, 2}, /*low=*/true, v));
  EXPECT_DOUBLE_EQ(number(v), 0.125);
  ASSERT_TRUE(valueBeyondEdge(option("train.lr_mult"), {2, 0.25, 1, 0.5}, /*low=*/false, v));
  EXPECT_DOUBLE_EQ(number(v), 4.0);
  // An arithmetic grid continues arithmetically.
  ASSERT_TRUE(valueBeyondEdge(option("train.weight_decay"), {0.3, 0.4}, /*low=*/false, v));
  EXPECT_NEAR(number(v), 0.5, 1e-12);
  // Past the option's range: clamped to the bound, none when the end is the bound.
  ASSERT_TRUE(valueBeyondEdge(option("train.beta1"), {0.9, 0.95}, /*low=*/false, v));
  EXPECT_LE(number(v), option("train.beta1").max);
  EXPECT_GT(number(v), 0.95);
  EXPECT_FALSE(valueBeyondEdge(option("train.lr_mult"), {0, 0.5}, /*low=*/true, v));
  // Integers round; one value has no step; a choice has no ends.
  ASSERT_TRUE(valueBeyondEdge(option("model.n_head"), {2, 4}, /*low=*/false, v));
  EXPECT_EQ(std::get<int64_t>(v), 8);
  EXPECT_FALSE(valueBeyondEdge(option("train.lr_mult"), {1}, /*low=*/true, v));
  EXPECT_FALSE(valueBeyondEdge(option("model.mlp"), {0, 1}, /*low=*/true, v));
}

TEST(SweepExtension, PlansThePointPastTheEdgeWithTheOtherAxesKept) {
  const LadderSpec spec = parseLadder(kSweptLadder, "t.toml");
  std::vector<std::string> tried;
  for (const PlannedRun& r : spec.runs)
    if (r.arm == "wide" && r.size == "d4" && r.seed == 3) tried.push_back(r.sweep_label);
  ASSERT_EQ(tried.size(), 6u);
  const std::vector<PlannedRun> runs =
      sweepExtensionRuns(spec, {{"wide", "d4", "lr_mult0.5-beta20.98", tried}});
  ASSERT_EQ(runs.size(), 1u);
  const PlannedRun& r = runs[0];
  EXPECT_EQ(r.name, "wide-d4-s3-lr_mult0.25-beta20.98");
  EXPECT_EQ(r.sweep_label, "lr_mult0.25-beta20.98");
  EXPECT_DOUBLE_EQ(r.config.train.lr_mult, 0.25);
  EXPECT_DOUBLE_EQ(r.config.train.beta2, 0.98);
  EXPECT_EQ(r.config.model.mlp, MlpKind::swiglu);  // the arm's own options
  // Planned like the grid's run of the same rung: same size, tokens and FLOPs.
  for (const PlannedRun& grid : spec.runs)
    if (grid.arm == "wide" && grid.size == "d4") {
      EXPECT_EQ(r.config.model.n_layer, grid.config.model.n_layer);
      EXPECT_DOUBLE_EQ(r.flops, grid.flops);
      EXPECT_GT(r.est_seconds, 0);
      break;
    }
  // Inside lr_mult's values, the point extends its other axis (beta2 past 0.98, within range).
  const auto inside = sweepExtensionRuns(spec, {{"wide", "d4", "lr_mult1-beta20.98", tried}});
  ASSERT_EQ(inside.size(), 1u);
  EXPECT_DOUBLE_EQ(inside[0].config.train.lr_mult, 1.0);
  EXPECT_GT(inside[0].config.train.beta2, 0.98);
  EXPECT_LT(inside[0].config.train.beta2, 1.0);
  // An arm the ladder does not have gives none.
  EXPECT_TRUE(sweepExtensionRuns(spec, {{"nope", "d4", "lr_mult0.5-beta20.98", tried}}).empty());
}

TEST(SweepExtension, IsACandidateUntilTaken) {
  const LadderSpec spec = parseLadder(kSweptLadder, "t.toml");
  std::vector<std::string> tried;
  for (const PlannedRun& r : spec.runs)
    if (r.arm == "vanilla" && r.size == "d2" && r.seed == 3) tried.push_back(r.sweep_label);
  CandidateOptions o;
  o.extra_seeds = false;
  o.sweep_edges = {{"vanilla", "d2", "lr_mult2-beta20.95", tried}};
  auto has = [](const std::vector<CandidateRun>& c, const std::string& name) {
    for (const auto& x : c)
      if (x.run.name == name) return x.kind == CandidateKind::kSweepExtension;
    return false;
  };
  EXPECT_TRUE(has(candidateRuns(spec, {}, o), "vanilla-d2-s3-lr_mult4-beta20.95"));
  EXPECT_STREQ(candidateKindName(CandidateKind::kSweepExtension), "sweep extension");
  const std::vector<ExistingRun> taken = {
      {"vanilla", "d2", 3, RunStatus::kFinished, "lr_mult4-beta20.95"}};
  EXPECT_FALSE(has(candidateRuns(spec, taken, o), "vanilla-d2-s3-lr_mult4-beta20.95"));
  // A grid point past the edge that was cancelled is offered once, as the extension.
  o.sweep_edges = {
      {"vanilla", "d2", "lr_mult1-beta20.95", {"lr_mult0.5-beta20.95", "lr_mult1-beta20.95"}}};
  const auto c =
      candidateRuns(spec, {{"vanilla", "d2", 3, RunStatus::kCancelled, "lr_mult2-beta20.95"}}, o);
  EXPECT_EQ(std::count_if(c.begin(), c.end(),
                          [](const CandidateRun& x) {
                            return x.run.name == "vanilla-d2-s3-lr_mult2-beta20.95";
                          }),
            1);
  EXPECT_TRUE(has(c, "vanilla-d2-s3-lr_mult2-beta20.95"));
}

TEST(SweepExtension, APointInsideItsOnlyAxisHasNone) {
  std::string text = kSweptLadder;
  text.replace(text.find("train.beta2 = [0.95, 0.98]\n"), 27, "");
  const LadderSpec spec = parseLadder(text, "t.toml");
  const std::vector<std::string> tried = {"lr_mult0.5", "lr_mult1", "lr_mult2"};
  EXPECT_TRUE(sweepExtensionRuns(spec, {{"vanilla", "d2", "lr_mult1", tried}}).empty());
  const auto past = sweepExtensionRuns(spec, {{"vanilla", "d2", "lr_mult0.5", tried}});
  ASSERT_EQ(past.size(), 1u);
  EXPECT_EQ(past[0].name, "vanilla-d2-s3-lr_mult0.25");
}
