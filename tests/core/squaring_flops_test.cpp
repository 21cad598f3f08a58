// The squaring trainer's planned FLOPs (core/squaring/squaring_flops.h): fixed iterations cost the
// model's plain FLOPs; per-T and re-entering runs cost their iterations; sampled and progressive
// iterations cost their expectation.
#include "core/squaring/squaring_flops.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/flop_model.h"
#include "core/ladder/run_plan.h"
#include "core/squaring/loop_format.h"
#include "core/squaring/tiers.h"

namespace deepladder {
namespace {

RunConfig loopedRun() {
  RunConfig c;
  c.task = Task::squaring;
  c.model.vocab_size = 17;
  c.model.d_model = 32;
  c.model.n_head = 4;
  c.model.n_layer = 3;
  c.model.seq_len = 13;
  c.model.arch = Arch::pcc;
  c.model.core_mode = CoreMode::tied;
  c.model.passes = 2;
  c.train.steps = 10;
  c.train.batch_size = 8;
  c.squaring.tier = "E1";
  return c;
}

double plainFlops(const RunConfig& c) {
  return trainingFlops(c.model, c.train.steps, c.train.batch_size * c.model.seq_len);
}

TEST(SquaringFlops, FixedIterationsCostTheModelsPlainFlops) {
  RunConfig c = loopedRun();
  EXPECT_DOUBLE_EQ(ladder::planRunConfig(c, 0).flops, plainFlops(c));
  c.model.arch = Arch::vanilla;
  EXPECT_DOUBLE_EQ(ladder::planRunConfig(c, 0).flops, plainFlops(c));
}

TEST(SquaringFlops, PerTAveragesTheTrainingTs) {
  RunConfig c = loopedRun();
  c.squaring.iterations = IterationRule::per_t;
  const auto& tier = squaring::tierPreset("E1");
  double sum = 0;
  for (int64_t t : tier.train_t) {
    ModelConfig m = c.model;
    m.passes = 2 * t;
    sum += static_cast<double>(c.model.seq_len) * flopsPerToken(m);
  }
  const double expected = static_cast<double>(c.train.steps * c.train.batch_size) * sum /
                          static_cast<double>(tier.train_t.size());
  EXPECT_NEAR(ladder::planRunConfig(c, 0).flops / expected, 1.0, 1e-12);

  // Re-entering: T steps of the loop row, each through `passes` core passes.
  c.squaring.reentry = Reentry::straight_through;
  const int64_t row = squaring::loopRowLength(squaring::loopDigitWidth(tier));
  double reentry_sum = 0;
  for (int64_t t : tier.train_t)
    reentry_sum += static_cast<double>(t * row) * flopsPerToken(c.model);
  EXPECT_NEAR(
      ladder::planRunConfig(c, 0).flops / (static_cast<double>(c.train.steps * c.train.batch_size) *
                                           reentry_sum / static_cast<double>(tier.train_t.size())),
      1.0, 1e-12);
}

TEST(SquaringFlops, SampledAndProgressiveIterationsCostTheirExpectation) {
  RunConfig c = loopedRun();
  c.squaring.iterations = IterationRule::poisson_lognormal;
  c.squaring.mean_iterations = 4;
  c.squaring.iteration_sigma = 0.5;
  const double mean_r = 1 + 3 * std::exp(0.125);
  const double per_token = [&] {  // affine in the passes: interpolate between whole counts
    ModelConfig low = c.model, high = c.model;
    low.passes = static_cast<int64_t>(std::floor(mean_r));
    high.passes = low.passes + 1;
    const double f = mean_r - std::floor(mean_r);
    return flopsPerToken(low) + f * (flopsPerToken(high) - flopsPerToken(low));
  }();
  const double tokens = static_cast<double>(c.train.steps * c.train.batch_size * c.model.seq_len);
  EXPECT_NEAR(ladder::planRunConfig(c, 0).flops / (tokens * per_token), 1.0, 1e-12);

  c.squaring.iterations = IterationRule::fixed;
  c.squaring.progressive_weight = 0.5;
  ModelConfig m = c.model;  // r = 2 plus E[n + k] = (3 r + 1) / 4 = 1.75
  m.passes = 3;
  ModelConfig m4 = c.model;
  m4.passes = 4;
  const double progressive = flopsPerToken(m) + 0.75 * (flopsPerToken(m4) - flopsPerToken(m));
  EXPECT_NEAR(ladder::planRunConfig(c, 0).flops / (tokens * progressive), 1.0, 1e-12);
}

}  // namespace
}  // namespace deepladder
