// Bootstrap bands of the fitted frontier L(C) and of the projected multiplier M(C): the band
// holds the point fit, narrows with more points per rung and with less noise, agrees with the
// multiplier intervals of the same fit, and is absent (NaN) without a bootstrap. Data: the
// design doc's arms from synthetic_data.h with seeded multiplicative noise.
#include "fitting/frontier_band.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fitting/frontier_fit.h"
#include "fitting/frontier_model.h"
#include "synthetic_data.h"

namespace deepladder::fitting {
namespace {

using testing::designDocArms;
using testing::syntheticLadder;

FrontierOptions bandOptions(int bootstrap) {
  FrontierOptions o = defaultFrontierOptions();
  o.bootstrap = bootstrap;
  return o;
}

// `copies` runs per rung (different noise draws), as seeds of one ladder would give.
ResultsTable repeatedLadder(int copies, double noise) {
  ResultsTable table;
  table.source = "synthetic";
  for (int k = 0; k < copies; ++k) {
    const auto one = syntheticLadder(designDocArms(), 6, noise, 100 + k);
    table.points.insert(table.points.end(), one.points.begin(), one.points.end());
  }
  return table;
}

// Mean relative width (hi - lo) / value over the rungs' range (1e17 .. 1e19.5).
double meanRelativeWidth(const FrontierResult& result, size_t arm) {
  const auto band = frontierBand(result, arm, logSpacedComputes(1e17, 3e19, 25));
  double sum = 0;
  for (const auto& p : band) sum += (p.hi - p.lo) / p.value;
  return sum / band.size();
}

TEST(FrontierBand, LogSpacedComputesSpanTheRangeInclusive) {
  const auto c = logSpacedComputes(1e18, 1e20, 5);
  ASSERT_EQ(c.size(), 5u);
  EXPECT_DOUBLE_EQ(c.front(), 1e18);
  EXPECT_NEAR(c[2] / 1e19, 1.0, 1e-12);
  EXPECT_NEAR(c.back() / 1e20, 1.0, 1e-12);
  EXPECT_TRUE(logSpacedComputes(-1, 1e20, 5).empty());
  EXPECT_TRUE(logSpacedComputes(1e20, 1e18, 5).empty());
}

TEST(FrontierBand, ContainsThePointFitOfEveryArm) {
  const auto result = fitFrontier(repeatedLadder(2, 0.01), bandOptions(120));
  ASSERT_GT(result.bootstrap_used, 100);
  ASSERT_EQ(result.bootstrap_draws.size(), static_cast<size_t>(result.bootstrap_used));
  const auto computes = logSpacedComputes(1e17, 1e20, 31);
  for (size_t a = 0; a < result.arms.size(); ++a) {
    SCOPED_TRACE(result.arms[a].arm);
    const auto band = frontierBand(result, a, computes);
    ASSERT_EQ(band.size(), computes.size());
    for (const auto& p : band) {
      EXPECT_DOUBLE_EQ(p.value, frontierLoss(p.compute, result.c_ref, result.arms[a].E,
                                             result.arms[a].A, result.arms[a].gamma));
      EXPECT_LT(p.lo, p.hi) << "C = " << p.compute;
      EXPECT_LE(p.lo, p.value) << "C = " << p.compute;
      EXPECT_GE(p.hi, p.value) << "C = " << p.compute;
    }
  }
  const auto m = multiplierBand(result, 1, logSpacedComputes(1e17, 1e26, 37));
  ASSERT_EQ(m.size(), 37u);
  for (const auto& p : m) {
    EXPECT_LE(p.lo, p.value) << "C = " << p.compute;
    EXPECT_GE(p.hi, p.value) << "C = " << p.compute;
  }
  EXPECT_TRUE(multiplierBand(result, 0, computes).empty()) << "the baseline has no multiplier";
}

TEST(FrontierBand, NarrowsWithMorePointsPerRung) {
  // Averaged over three bootstrap seeds: one 100-resample band of six points is itself noisy.
  for (size_t a = 0; a < 2; ++a) {
    double few = 0, many = 0;
    for (std::uint64_t seed : {20240520u, 1u, 2u}) {
      FrontierOptions o = bandOptions(100);
      o.seed = seed;
      few += meanRelativeWidth(fitFrontier(repeatedLadder(1, 0.01), o), a);
      many += meanRelativeWidth(fitFrontier(repeatedLadder(6, 0.01), o), a);
    }
    SCOPED_TRACE(a);
    EXPECT_LT(many, 0.7 * few);
  }
}

TEST(FrontierBand, NarrowsWithLessNoise) {
  const auto noisy = fitFrontier(repeatedLadder(2, 0.02), bandOptions(100));
  const auto quiet = fitFrontier(repeatedLadder(2, 0.002), bandOptions(100));
  for (size_t a = 0; a < 2; ++a) {
    SCOPED_TRACE(noisy.arms[a].arm);
    EXPECT_LT(meanRelativeWidth(quiet, a), 0.3 * meanRelativeWidth(noisy, a));
  }
}

TEST(FrontierBand, MultiplierBandMatchesTheFitsProjectedIntervals) {
  FrontierOptions o = bandOptions(80);
  o.at = {1e19, 1e21, 1e23, 1e26};
  const auto result = fitFrontier(repeatedLadder(2, 0.01), o);
  const auto band = multiplierBand(result, 1, o.at);
  ASSERT_EQ(result.multipliers.size(), 1u);
  for (size_t k = 0; k < o.at.size(); ++k) {
    SCOPED_TRACE(o.at[k]);
    const auto& projected = result.multipliers[0].projected[k];
    EXPECT_NEAR(band[k].value, projected.multiplier, 1e-12 * projected.multiplier);
    // The bootstrap band is the fit interval; the projected ci is the prediction interval,
    // which contains it (the misfit widens each side).
    EXPECT_NEAR(band[k].lo, projected.fit_lo, 1e-12 * projected.fit_lo);
    EXPECT_NEAR(band[k].hi, projected.fit_hi, 1e-12 * projected.fit_hi);
    EXPECT_LE(projected.ci_lo, projected.fit_lo);
    EXPECT_GE(projected.ci_hi, projected.fit_hi);
  }
}

TEST(FrontierBand, WithoutBootstrapTheBandIsAbsent) {
  const auto result = fitFrontier(repeatedLadder(1, 0.0), bandOptions(0));
  EXPECT_TRUE(result.bootstrap_draws.empty());
  for (const auto& p : frontierBand(result, 0, logSpacedComputes(1e17, 1e19, 5))) {
    EXPECT_TRUE(std::isfinite(p.value));
    EXPECT_TRUE(std::isnan(p.lo));
    EXPECT_TRUE(std::isnan(p.hi));
  }
  EXPECT_TRUE(frontierBand(result, 7, {1e18}).empty());
}

}  // namespace
}  // namespace deepladder::fitting
