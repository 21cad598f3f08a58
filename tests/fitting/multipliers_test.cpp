// Compute multipliers: measured (log-compute interpolation) against a hand computation, and the
// projected formula against its definition L_arm(C / M) = L_base(C).
#include "fitting/multipliers.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fitting/frontier_fit.h"
#include "fitting/frontier_model.h"

namespace deepladder::fitting {
namespace {

TEST(MeasuredMultipliers, InterpolatesInLogComputeByHand) {
  // Baseline 1e19 has loss 2.8, half-way between the arm's 2.9 at 1e18 and 2.7 at 1e19:
  // C_a = 10^18.5, M = 1e19 / 10^18.5 = 10^0.5 = 3.16228. Same at 1e20 (arm 2.7 -> 2.5).
  // Baseline 1e18 (loss 3.0) lies above the arm's range: absent.
  const std::vector<ComputeLoss> base = {{1e18, 3.0}, {1e19, 2.8}, {1e20, 2.6}};
  const std::vector<ComputeLoss> arm = {{1e18, 2.9}, {1e19, 2.7}, {1e20, 2.5}};
  const auto m = measuredMultipliers(base, arm);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].compute, 1e19);
  EXPECT_NEAR(m[0].multiplier, std::sqrt(10.0), 1e-9);
  EXPECT_EQ(m[1].compute, 1e20);
  EXPECT_NEAR(m[1].multiplier, std::sqrt(10.0), 1e-9);
}

TEST(MeasuredMultipliers, UnevenBracketByHand) {
  // Baseline 2.75 at 4e19; arm 2.9 at 1e18, 2.7 at 1e20: t = 0.75, ln C_a = ln 1e18 + 0.75 ln 100
  // -> C_a = 10^19.5; M = 4e19 / 10^19.5 = 4 / sqrt(10) = 1.264911.
  const auto m = measuredMultipliers({{4e19, 2.75}}, {{1e18, 2.9}, {1e20, 2.7}});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NEAR(m[0].multiplier, 4.0 / std::sqrt(10.0), 1e-9);
}

TEST(MeasuredMultipliers, SeedsAtOneComputeAreAveraged) {
  std::vector<RunPoint> pts(3);
  pts[0] = {"a", 1e19, 2.0};
  pts[1] = {"a", 1e18, 3.0};
  pts[2] = {"a", 1e19, 2.2};
  const auto rungs = rungsOf(pts);
  ASSERT_EQ(rungs.size(), 2u);
  EXPECT_EQ(rungs[0].compute, 1e18);
  EXPECT_NEAR(rungs[1].loss, 2.1, 1e-12);
}

TEST(ProjectedMultiplier, SatisfiesItsDefinition) {
  // A_b = 1, g_b = 0.1; A_a = 0.9, g_a = 0.12; E = 1.7; C0 = 1e18. Hand value at C = 1e20:
  // x = 100, L_b - E = 100^-0.1 = 0.630957; C_a / C0 = (0.9 / 0.630957)^(1/0.12) = 19.2910;
  // M = 100 / 19.2910 = 5.183770 (checked with python3).
  const double M = projectedMultiplier(1e20, 1e18, 1.0, 0.1, 0.9, 0.12);
  EXPECT_NEAR(M, 5.183770366482883, 1e-9);
  const double loss_base = frontierLoss(1e20, 1e18, 1.7, 1.0, 0.1);
  const double loss_arm = frontierLoss(1e20 / M, 1e18, 1.7, 0.9, 0.12);
  EXPECT_NEAR(loss_arm, loss_base, 1e-12);
  // Per decade: M(1e21) / M(1e20) = 10^(1 - 0.1/0.12).
  const double ratio = projectedMultiplier(1e21, 1e18, 1.0, 0.1, 0.9, 0.12) / M;
  EXPECT_NEAR(ratio, multiplierPerDecade(0.1, 0.12), 1e-12);
  EXPECT_NEAR(ratio, std::pow(10.0, 1.0 - 0.1 / 0.12), 1e-12);
  // An arm with gamma 0 never reaches lower losses.
  EXPECT_TRUE(std::isnan(projectedMultiplier(1e20, 1e18, 1.0, 0.1, 0.9, 0.0)));
}

TEST(ProjectedMultiplier, DesignDocGrowthPerDecade) {
  // Design doc: gammas 0.111 vs 0.117 -> log10 growth 1 - 0.111/0.117 = 0.05128 per decade
  // (the doc's "about 10^0.048" is the same within the rounding of the gammas).
  EXPECT_NEAR(std::log10(multiplierPerDecade(0.111, 0.117)), 0.051282, 1e-6);
}

}  // namespace
}  // namespace deepladder::fitting
