// WSD multiplier endpoints (first step, flat part, exactly zero at the end), rounding of the
// decay length, the paper's constants, and the growth re-warm (issue 9).
#include "trainers/wsd_schedule.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "core/errors.h"

namespace deepladder::trainers {
namespace {

TEST(WsdSchedule, WarmsUpFromOneOverWAndIsFlatUntilTheDecay) {
  const WsdSchedule s{/*S=*/100, /*W=*/10, /*r_wd=*/0.2};
  EXPECT_EQ(wsdDecaySteps(s), 20);
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 0), 0.1);  // first update: 1/W, never zero
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 4), 0.5);
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 9), 1.0);  // last warmup step reaches the peak
  for (int64_t step = 10; step <= 80; ++step) EXPECT_EQ(wsdMultiplier(s, step), 1.0) << step;
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 81), 19.0 / 20.0);
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 90), 0.5);
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 99), 1.0 / 20.0);  // last update
  EXPECT_EQ(wsdMultiplier(s, 100), 0.0);               // end of training: exactly zero
}

TEST(WsdSchedule, DecayIsLinear) {
  const WsdSchedule s{1142, 40, 0.6};  // vanilla d6: D = round(685.2) = 685
  EXPECT_EQ(wsdDecaySteps(s), 685);
  for (int64_t step = 458; step < 1142; ++step)
    EXPECT_NEAR(wsdMultiplier(s, step) - wsdMultiplier(s, step + 1), 1.0 / 685.0, 1e-15);
  EXPECT_EQ(wsdMultiplier(s, 457), 1.0);
  EXPECT_EQ(wsdMultiplier(s, 1142), 0.0);
}

TEST(WsdSchedule, DecayLengthRoundsHalfToEven) {
  EXPECT_EQ(wsdDecaySteps({5, 0, 0.5}), 2);  // 2.5 -> 2
  EXPECT_EQ(wsdDecaySteps({7, 0, 0.5}), 4);  // 3.5 -> 4
  EXPECT_EQ(wsdDecaySteps({10, 0, 1.0}), 10);
  EXPECT_EQ(wsdDecaySteps({10, 0, 0.0}), 0);
}

TEST(WsdSchedule, NoWarmupStartsAtFullRateAndFullDecayStartsAtOnce) {
  // operator_1: W 0, r_wd 0.8.
  EXPECT_DOUBLE_EQ(wsdMultiplier({100, 0, 0.8}, 0), 1.0);
  // loop_2 / untied_2: W 40, r_wd 1.0; the warmup comes first, then the decay line (S - t) / S.
  const WsdSchedule s{1000, 40, 1.0};
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 0), 1.0 / 40.0);
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 39), 1.0);
  EXPECT_DOUBLE_EQ(wsdMultiplier(s, 40), 960.0 / 1000.0);
  EXPECT_EQ(wsdMultiplier(s, 1000), 0.0);
  // No decay at all: flat to the end.
  EXPECT_EQ(wsdMultiplier({100, 0, 0.0}, 100), 1.0);
}

TEST(WsdSchedule, RejectsBadSchedulesAndSteps) {
  EXPECT_THROW(wsdMultiplier({0, 0, 0.5}, 0), UserError);
  EXPECT_THROW(wsdMultiplier({100, -1, 0.5}, 0), UserError);
  EXPECT_THROW(wsdMultiplier({100, 101, 0.5}, 0), UserError);
  EXPECT_THROW(wsdMultiplier({100, 10, 1.5}, 0), UserError);
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
