// The config-only learning rates (core/learning_rate_schedule.h): warmup, cosine floor, WSD flat
// and decay to the floor, the growth re-warm's zero at the crossover, and lr x lr_mult. The
// expected values are the formulas of trainers/lr_schedule.h and trainers/wsd_schedule.h worked
// by hand for a 100-step run.
#include "core/learning_rate_schedule.h"

#include <gtest/gtest.h>

using namespace deepladder;

namespace {

RunConfig hundredSteps(Schedule kind) {
  RunConfig c;
  c.train.schedule = kind;
  c.train.lr = 1e-2;
  c.train.lr_mult = 2.0;
  c.train.min_lr_ratio = 0.1;
  c.train.steps = 100;
  c.train.warmup_steps = 10;
  c.train.decay_fraction = 0.2;
  return c;
}

}  // namespace

TEST(LearningRateSchedule, CosineWarmsUpThenEndsAtTheFloorTimesLrMult) {
  const std::vector<double> r = learningRates(hundredSteps(Schedule::cosine));
  ASSERT_EQ(r.size(), 100u);
  EXPECT_DOUBLE_EQ(r[0], 2e-2 * 0.1);  // (0 + 1) / 10 of the peak
  EXPECT_DOUBLE_EQ(r[9], 2e-2);
  EXPECT_DOUBLE_EQ(r[10], 2e-2);
  EXPECT_NEAR(r[99], 2e-3, 1e-15);
}

TEST(LearningRateSchedule, WsdIsFlatUntilTheDecayThenLinearToTheFloor) {
  const std::vector<double> r = learningRates(hundredSteps(Schedule::wsd));
  EXPECT_DOUBLE_EQ(r[10], 2e-2);
  EXPECT_DOUBLE_EQ(r[80], 2e-2);  // decay start max(10, 100 - 20) = 80: still the peak
  EXPECT_NEAR(r[99], 2e-3, 1e-15);
  EXPECT_NEAR(r[90], 2e-2 * (1 - 0.9 * 10.0 / 19.0), 1e-15);
}

TEST(LearningRateSchedule, GrowthRewarmIsZeroAtTheCrossoverAndFullAfterIt) {
  RunConfig c = hundredSteps(Schedule::wsd);
  c.model.n_layer = 2;
  c.model.grow_layers = 4;
  c.model.grow_fraction = 0.6;
  c.model.rewarm_steps = 4;
  const std::vector<double> r = learningRates(c);
  EXPECT_DOUBLE_EQ(r[59], 2e-2);
  EXPECT_DOUBLE_EQ(r[60], 0.0);
  EXPECT_DOUBLE_EQ(r[62], 1e-2);
  EXPECT_DOUBLE_EQ(r[64], 2e-2);
}
