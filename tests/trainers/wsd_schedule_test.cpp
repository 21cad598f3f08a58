// WSD multiplier as the growth paper's schedule: the end of warmup, the decay start and the last
// update, rounding of the decay length, the paper's constants, and the growth re-warm on top.
#include "trainers/wsd_schedule.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "core/errors.h"

namespace deepladder::trainers {
namespace {

// Reference values: the growth paper's get_lr_multiplier (train.py) evaluated by hand.
TEST(WsdSchedule, WarmsUpFromOneOverWAndIsFlatUntilTheDecay) {
  const WsdSchedule s{/*S=*/100, /*W=*/10, /*r_wd=*/0.2};
  EXPECT_EQ(wsdDecaySteps(s), 20);
  EXPECT_EQ(wsdDecayStart(s), 80);
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 0), 0.1);  // first update: 1/W, never zero
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 4), 0.5);
  EXPECT_EQ(wsdMultiplier(s, 9), 1.0);  // end of warmup: exactly the peak
  for (int64_t step = 10; step <= 80; ++step) EXPECT_EQ(wsdMultiplier(s, step), 1.0) << step;
  // Decay from start 80 over updates 80..99: 1 - (step - 80) / 19.
  EXPECT_EQ(wsdMultiplier(s, 80), 1.0);  // decay start: still the peak
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 81), 1.0 - 1.0 / 19.0);
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 98), 1.0 - 18.0 / 19.0);
  EXPECT_EQ(wsdMultiplier(s, 99), 0.0);   // last update (step S-1): exactly zero
  EXPECT_EQ(wsdMultiplier(s, 100), 0.0);  // end of training
}

TEST(WsdSchedule, DecayIsLinear) {
  const WsdSchedule s{1142, 40, 0.6};  // vanilla d6: D = round(685.2) = 685, start 457
  EXPECT_EQ(wsdDecaySteps(s), 685);
  EXPECT_EQ(wsdDecayStart(s), 457);
  for (int64_t step = 457; step < 1141; ++step)
    EXPECT_NEAR(wsdMultiplier(s, step) - wsdMultiplier(s, step + 1), 1.0 / 684.0, 1e-15);
  EXPECT_EQ(wsdMultiplier(s, 456), 1.0);
  EXPECT_EQ(wsdMultiplier(s, 457), 1.0);
  EXPECT_EQ(wsdMultiplier(s, 1141), 0.0);
}

TEST(WsdSchedule, DecaysToTheFinalFraction) {
  const WsdSchedule s{100, 10, 0.2, /*final=*/0.1};
  EXPECT_EQ(wsdMultiplier(s, 80), 1.0);
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 99), 0.1);
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 90), 1.0 - 0.9 * 10.0 / 19.0);
}

TEST(WsdSchedule, DecayLengthRoundsHalfToEven) {
  EXPECT_EQ(wsdDecaySteps({5, 0, 0.5}), 2);  // 2.5 -> 2
  EXPECT_EQ(wsdDecaySteps({7, 0, 0.5}), 4);  // 3.5 -> 4
  EXPECT_EQ(wsdDecaySteps({10, 0, 1.0}), 10);
  EXPECT_EQ(wsdDecaySteps({10, 0, 0.0}), 0);
}

TEST(WsdSchedule, NoWarmupStartsAtFullRateAndFullDecayStartsAfterTheWarmup) {
  // operator_1: W 0, r_wd 0.8.
  EXPECT_DOUBLE_EQ(wsdMultiplier({100, 0, 0.8}, 0), 1.0);
  // untied_grow: W 40, r_wd 1.0 (D = S): the decay starts at max(W, S - D) = W, so the end of
  // warmup (step 39) and the decay start (step 40) are both at the peak, and the line reaches 0 at
  // the last update S-1: 1 - (step - 40) / (S - 41).
  const WsdSchedule s{1000, 40, 1.0};
  EXPECT_EQ(wsdDecayStart(s), 40);
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 0), 1.0 / 40.0);
  EXPECT_EQ(wsdMultiplier(s, 39), 1.0);
  EXPECT_EQ(wsdMultiplier(s, 40), 1.0);
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 41), 1.0 - 1.0 / 959.0);
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 520), 0.5 - 0.5 / 959.0);
  EXPECT_EQ(wsdMultiplier(s, 999), 0.0);
  // No decay at all: flat to the end.
  EXPECT_EQ(wsdMultiplier({100, 0, 0.0}, 99), 1.0);
  EXPECT_EQ(wsdMultiplier({100, 0, 0.0}, 100), 1.0);
  // A decay of one update is the final fraction at once (the script's decay_steps == 1 case).
  EXPECT_EQ(wsdMultiplier({100, 0, 0.01}, 98), 1.0);
  EXPECT_EQ(wsdMultiplier({100, 0, 0.01}, 99), 0.0);
}

TEST(WsdSchedule, TheRewarmScalesTheDecayLineWithoutMovingIt) {
  // untied_grow d6: S 1826, W 40, r_wd 1, c = int(0.6 S) = 1095. The rate of update t is
  // wsd(t) x rewarm(t): 0 at c, on the WSD line again from c + 40.
  const WsdSchedule s{1826, 40, 1.0};
  const int64_t c = 1095;
  auto rate = [&](int64_t t) { return wsdMultiplier(s, t) * growthRewarmMultiplier(t, c); };
  EXPECT_EQ(rate(c - 1), wsdMultiplier(s, c - 1));
  EXPECT_EQ(rate(c), 0.0);
  EXPECT_DOUBLE_EQ(rate(c + 10), 0.25 * (1.0 - (c + 10 - 40.0) / 1785.0));
  EXPECT_EQ(rate(c + 40), wsdMultiplier(s, c + 40));
  EXPECT_EQ(rate(1825), 0.0);
}

TEST(WsdSchedule, RejectsBadSchedulesAndSteps) {
  EXPECT_THROW(wsdMultiplier({0, 0, 0.5}, 0), UserError);
  EXPECT_THROW(wsdMultiplier({100, -1, 0.5}, 0), UserError);
  EXPECT_THROW(wsdMultiplier({100, 101, 0.5}, 0), UserError);
  EXPECT_THROW(wsdMultiplier({100, 10, 1.5}, 0), UserError);
  EXPECT_THROW(wsdMultiplier({100, 10, 0.5, 1.5}, 0), UserError);
  EXPECT_THROW(wsdMultiplier({100, 10, 0.5}, -1), std::out_of_range);
  EXPECT_THROW(wsdMultiplier({100, 10, 0.5}, 101), std::out_of_range);
}

TEST(GrowthRewarm, IsZeroAtTheCrossoverAndFullAfterFortySteps) {
  const int64_t c = 1095;  // untied_grow d6
  EXPECT_EQ(growthRewarmMultiplier(0, c), 1.0);
  EXPECT_EQ(growthRewarmMultiplier(c - 1, c), 1.0);
  EXPECT_EQ(growthRewarmMultiplier(c, c), 0.0);
  EXPECT_DOUBLE_EQ(growthRewarmMultiplier(c + 1, c), 1.0 / 40.0);
  EXPECT_DOUBLE_EQ(growthRewarmMultiplier(c + 20, c), 0.5);
  EXPECT_EQ(growthRewarmMultiplier(c + 40, c), 1.0);
  EXPECT_EQ(growthRewarmMultiplier(c + 500, c), 1.0);
  EXPECT_THROW(growthRewarmMultiplier(0, c, 0), std::invalid_argument);
}

}  // namespace
}  // namespace deepladder::trainers
