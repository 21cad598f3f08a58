// Frontier fit: recovery of known parameters (noise-free to 1e-6, noisy: the bootstrap interval's
// coverage over many seeds against a binomial bound), joint E, bound flags, standard errors, seeded
// bootstrap.
#include "fitting/frontier_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "synthetic_data.h"

namespace deepladder::fitting {
namespace {

using testing::designDocArms;
using testing::syntheticLadder;
using testing::TrueArm;

FrontierOptions quickOptions(int bootstrap = 0) {
  FrontierOptions o = defaultFrontierOptions();
  o.bootstrap = bootstrap;
  return o;
}

TEST(FrontierFit, RecoversNoiseFreeDesignDocParameters) {
  const auto truth = designDocArms();
  const auto result = fitFrontier(syntheticLadder(truth, 8, 0.0, 1), quickOptions());
  ASSERT_EQ(result.arms.size(), 2u);
  for (size_t a = 0; a < 2; ++a) {
    SCOPED_TRACE(truth[a].name);
    EXPECT_EQ(result.arms[a].arm, truth[a].name);
    EXPECT_NEAR(result.arms[a].E / truth[a].E, 1.0, 1e-6);
    EXPECT_NEAR(result.arms[a].A / truth[a].A, 1.0, 1e-6);
    EXPECT_NEAR(result.arms[a].gamma / truth[a].gamma, 1.0, 1e-6);
    EXPECT_TRUE(result.arms[a].at_bound.empty());
  }
  EXPECT_TRUE(result.arms[0].E_free);
  EXPECT_FALSE(result.arms[1].E_free);
  // per decade = 10^(1 - 0.111/0.117)
  ASSERT_EQ(result.multipliers.size(), 1u);
  EXPECT_NEAR(result.multipliers[0].per_decade, std::pow(10.0, 1.0 - 0.111 / 0.117), 1e-6);
}

TEST(FrontierFit, JointSharedERecoversNoiseFreeParameters) {
  const std::vector<TrueArm> truth = {
      {"vanilla", 2.0, 1.0, 0.1}, {"deep", 2.0, 0.9, 0.13}, {"loop", 2.0, 1.1, 0.09}};
  FrontierOptions o = quickOptions();
  o.estimator = FrontierEstimator::Robust;  // a joint E is a fit of the robust estimator
  o.joint = true;
  const auto result = fitFrontier(syntheticLadder(truth, 7, 0.0, 1), o);
  ASSERT_EQ(result.arms.size(), 3u);
  // Order: baseline, then by name (deep, loop).
  const TrueArm expected[] = {truth[0], truth[1], truth[2]};
  for (size_t a = 0; a < 3; ++a) {
    SCOPED_TRACE(expected[a].name);
    EXPECT_EQ(result.arms[a].arm, expected[a].name);
    EXPECT_TRUE(result.arms[a].E_free);
    EXPECT_NEAR(result.arms[a].E / 2.0, 1.0, 1e-6);
    EXPECT_NEAR(result.arms[a].A / expected[a].A, 1.0, 1e-6);
    EXPECT_NEAR(result.arms[a].gamma / expected[a].gamma, 1.0, 1e-6);
  }
}

// The smallest count k for which P(X <= k) >= alpha when X ~ Binomial(n, p), minus one: a count of
// successes at or below the returned value happens with probability under alpha at rate p.
int binomialLowerBound(int n, double p, double alpha) {
  double cdf = 0;
  for (int k = 0; k <= n; ++k) {
    cdf += std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) +
                    k * std::log(p) + (n - k) * std::log1p(-p));
    if (cdf >= alpha) return k - 1;
  }
  return n;
}

TEST(FrontierFit, BootstrapIntervalCoversTheTruthAtItsNominalRate) {
  // A coverage check: 0.3% loss noise, 8 rungs, 95% fit intervals of gamma from 200 resamples,
  // over 120 independent ladders. At a true coverage of 95% the number of ladders whose interval
  // holds the true gamma is Binomial(120, 0.95); a count at or below the 0.1% quantile fails (a
  // false alarm once in a thousand runs of this test, and the seeds are fixed).
  constexpr int kLadders = 120;
  const auto truth = designDocArms();
  int covered_base = 0, covered_arm = 0;
  for (unsigned seed = 1; seed <= kLadders; ++seed) {
    const auto result = fitFrontier(syntheticLadder(truth, 8, 0.003, seed), quickOptions(200));
    EXPECT_GT(result.bootstrap_used, 190);
    const auto& b = result.arms[0];
    const auto& a = result.arms[1];
    ASSERT_LT(b.gamma_ci_lo, b.gamma_ci_hi);
    EXPECT_TRUE(std::isfinite(b.gamma_se) && b.gamma_se > 0);
    covered_base += b.gamma_ci_lo <= truth[0].gamma && truth[0].gamma <= b.gamma_ci_hi;
    covered_arm += a.gamma_ci_lo <= truth[1].gamma && truth[1].gamma <= a.gamma_ci_hi;
  }
  const int floor = binomialLowerBound(kLadders, 0.95, 1e-3);
  std::printf("95%% interval coverage over %d ladders: %s %d, %s %d (fail at <= %d)\n", kLadders,
              truth[0].name.c_str(), covered_base, truth[1].name.c_str(), covered_arm, floor);
  EXPECT_GT(covered_base, floor);
  EXPECT_GT(covered_arm, floor);
}

TEST(FrontierFit, SameSeedGivesSameIntervals) {
  const auto table = syntheticLadder(designDocArms(), 8, 0.003, 7);
  auto o = quickOptions(50);
  const auto r1 = fitFrontier(table, o);
  o.threads = 1;  // thread count must not change the result
  const auto r2 = fitFrontier(table, o);
  EXPECT_EQ(r1.arms[1].gamma_ci_lo, r2.arms[1].gamma_ci_lo);
  EXPECT_EQ(r1.multipliers[0].projected[0].ci_hi, r2.multipliers[0].projected[0].ci_hi);
  o.seed += 1;
  const auto r3 = fitFrontier(table, o);
  EXPECT_NE(r1.arms[1].gamma_ci_lo, r3.arms[1].gamma_ci_lo);
}

TEST(FrontierFit, ResidualBootstrapIsRecordedAndDiffersFromResampledRuns) {
  const auto table = syntheticLadder(designDocArms(), 8, 0.003, 3);
  FrontierOptions o = quickOptions(100);
  const auto runs = fitFrontier(table, o);
  o.residual_bootstrap = true;
  const auto residuals = fitFrontier(table, o);
  EXPECT_FALSE(runs.residual_bootstrap);
  EXPECT_TRUE(residuals.residual_bootstrap);
  // Same point fit, different resamples: the same multiplier, another interval around it.
  const auto& a = runs.multipliers.at(0).projected.back();
  const auto& b = residuals.multipliers.at(0).projected.back();
  EXPECT_EQ(a.multiplier, b.multiplier);
  EXPECT_NE(a.ci_lo, b.ci_lo);
  EXPECT_LT(b.ci_lo, b.multiplier);
  EXPECT_GT(b.ci_hi, b.multiplier);
}

TEST(FrontierFit, PurePowerLawFlagsEAtZeroBound) {
  // L = 3 (C/C0)^-0.05 has E = 0: the fit ends on the lower bound of E and says so.
  const std::vector<TrueArm> truth = {{"vanilla", 0.0, 3.0, 0.05}, {"deep", 0.0, 2.9, 0.05}};
  const auto result = fitFrontier(syntheticLadder(truth, 6, 0.0, 1), quickOptions());
  ASSERT_FALSE(result.arms[0].at_bound.empty());
  EXPECT_EQ(result.arms[0].at_bound[0], "E=0");
  EXPECT_NEAR(result.arms[0].gamma, 0.05, 1e-6);
}

TEST(FrontierFit, ExactlyDeterminedFitHasNoStandardError) {
  // Three rungs, three parameters: no degrees of freedom left, se undefined (NaN, null in JSON).
  const auto result = fitFrontier(syntheticLadder(designDocArms(), 3, 0.0, 1), quickOptions());
  EXPECT_TRUE(std::isnan(result.arms[0].gamma_se));
  EXPECT_NEAR(result.arms[0].gamma, 0.111, 1e-5);
}

TEST(FrontierFit, PercentileInterpolatesLikeNumpy) {
  // numpy.percentile([1, 2, 3, 4], 25) = 1.75
  EXPECT_DOUBLE_EQ(percentile({4, 1, 3, 2}, 0.25), 1.75);
  EXPECT_TRUE(std::isnan(percentile({}, 0.5)));
}

}  // namespace
}  // namespace deepladder::fitting

namespace deepladder::fitting {
namespace {

TEST(FrontierFit, HuberRefitResistsOneOutlier) {
  // Design-doc baseline (E 1.8, A 1.2, gamma 0.111) on 8 noise-free rungs, the 6th rung 3% too
  // high. Plain bounded least squares gives gamma 0.0993 (scipy.optimize.least_squares on the
  // same points); the Huber refit (scale from the MAD) gets back to 0.1095.
  auto table = testing::syntheticLadder(testing::designDocArms(), 8, 0.0, 9);
  table.points[5].val_loss *= 1.03;
  FrontierOptions o = defaultFrontierOptions();
  o.bootstrap = 0;
  const auto result = fitFrontier(table, o);
  EXPECT_GT(result.arms[0].huber_delta, 0.0);
  EXPECT_NEAR(result.arms[0].gamma, 0.111, 0.003);
}

TEST(FrontierFit, ArmBelowSharedEIsFlaggedNotNanByTheRobustEstimator) {
  // The deep arm's losses lie below the baseline's E: the fit cannot reach them with E shared.
  // The robust estimator's result stays finite and carries a flag (the paper estimator refuses:
  // frontier_estimator_test.cpp).
  const std::vector<testing::TrueArm> truth = {{"vanilla", 2.0, 1.0, 0.1}, {"deep", 1.0, 1.0, 0.1}};
  FrontierOptions o = defaultFrontierOptions();
  o.estimator = FrontierEstimator::Robust;
  o.bootstrap = 0;
  const auto result = fitFrontier(testing::syntheticLadder(truth, 6, 0.0, 1), o);
  const auto& deep = result.arms[1];
  EXPECT_TRUE(std::isfinite(deep.A) && std::isfinite(deep.gamma));
  ASSERT_FALSE(deep.at_bound.empty());
  EXPECT_EQ(deep.at_bound[0], "E>=arm min loss");
}

}  // namespace
}  // namespace deepladder::fitting

namespace deepladder::fitting {
namespace {

// An arm of two rungs passes exactly through both (E fixed: two
// parameters), so every resample of it is exact too; its "interval" only said which of the two
// points each resample drew. `fit` warned and printed it anyway. Now it has none, and its
// multiplier neither, while the baseline (six rungs) keeps its intervals.
TEST(FrontierFit, AnArmWithNoResidualFreedomGetsNoBootstrapInterval) {
  ResultsTable table = syntheticLadder(testing::designDocArms(), 6, 0.003, 5);
  const std::string other = table.points.back().arm;
  std::vector<RunPoint> kept;
  int other_points = 0;
  for (const RunPoint& p : table.points)
    if (p.arm != other || other_points++ < 2) kept.push_back(p);
  table.points = kept;
  const FrontierResult result = fitFrontier(table, quickOptions(200));
  ASSERT_EQ(result.arms.size(), 2u);
  const ArmFit& two = result.arms[1];
  ASSERT_EQ(two.arm, other);
  ASSERT_EQ(two.n_points, 2);
  EXPECT_TRUE(std::isfinite(two.gamma));
  EXPECT_TRUE(std::isnan(two.gamma_ci_lo) && std::isnan(two.gamma_ci_hi));
  EXPECT_TRUE(std::isnan(two.A_ci_lo) && std::isnan(two.A_ci_hi));
  ASSERT_EQ(result.multipliers.size(), 1u);
  for (const auto& p : result.multipliers[0].projected) {
    EXPECT_TRUE(std::isfinite(p.multiplier));
    EXPECT_TRUE(std::isnan(p.ci_lo) && std::isnan(p.ci_hi));
  }
  const ArmFit& base = result.arms[0];
  EXPECT_TRUE(std::isfinite(base.gamma_ci_lo) && std::isfinite(base.gamma_ci_hi));
  EXPECT_LT(base.gamma_ci_lo, base.gamma_ci_hi);
}

}  // namespace
}  // namespace deepladder::fitting
