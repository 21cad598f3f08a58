// Prediction intervals (fitting/prediction_interval.h, fitting/misfit.h): on synthetic laws with a
// known misfit (a curvature term of known size in ln(L - E)) the prediction intervals of held-out
// rungs reach their stated coverage and the fit intervals do not; on a clean law the prediction
// interval stays close to the fit interval; a 3-rung arm has no interval (null, never lo = hi);
// the nested backtest never sees the rungs it holds out; the misfit model follows its formula.
#include "fitting/prediction_interval.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "fitting/backtest.h"
#include "fitting/fit_json.h"
#include "fitting/frontier_fit.h"
#include "fitting/misfit.h"
#include "fitting/scaling_table.h"

namespace deepladder::fitting {
namespace {

// Two arms, `rungs` computes a third of a decade apart from 1e17, loss E + A exp(-g x - d x^2)
// (x = ln(C/1e18)) times (1 + noise z): d = 0 is a clean power law.
ResultsTable curvedLadder(double delta, double noise, unsigned seed, int rungs = 8) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  ResultsTable t;
  t.source = "synthetic";
  const struct {
    const char* name;
    double A, gamma;
  } arms[] = {{"vanilla", 1.2, 0.111}, {"deep", 1.15, 0.117}};
  for (const auto& a : arms)
    for (int i = 0; i < rungs; ++i) {
      RunPoint p;
      p.arm = a.name;
      p.compute_flops = 1e17 * std::pow(10.0, i / 3.0);
      const double x = std::log(p.compute_flops / 1e18);
      p.val_loss = (1.8 + a.A * std::exp(-a.gamma * x - delta * x * x)) * (1 + noise * z(rng));
      t.points.push_back(p);
    }
  return t;
}

// The curvature of the "known misfit" ladders.
constexpr double kBend = -0.012;

FrontierOptions withBootstrap(int resamples = 100) {
  FrontierOptions o = defaultFrontierOptions();
  o.bootstrap = resamples;
  o.at = {1e21};
  return o;
}

struct Coverage {
  int points = 0, covered = 0, fit_covered = 0;
  std::vector<double> pred_width, fit_width;
};

Coverage backtestCoverage(double delta, double noise, int ladders) {
  Coverage c;
  for (int s = 0; s < ladders; ++s) {
    const BacktestResult r =
        backtestFrontier(curvedLadder(delta, noise, 100 + s), withBootstrap(), 2);
    for (const BacktestPoint& p : r.points) {
      if (!p.has_interval) continue;
      ++c.points;
      c.covered += p.covered;
      c.fit_covered += p.fit_covered;
      c.pred_width.push_back(p.hi - p.lo);
      c.fit_width.push_back(p.fit_hi - p.fit_lo);
    }
  }
  return c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

TEST(PredictionInterval, ReachesItsCoverageOnALawWithKnownMisfitWhereTheFitIntervalDoesNot) {
  // delta = -0.012: the log-log slope flattens by 0.13 across the eight rungs (2.3 decades); the
  // held-out rungs miss a straight extrapolation by 1-3%, as the published ladders' do.
  const Coverage c = backtestCoverage(kBend, 0.0007, 20);
  ASSERT_GT(c.points, 100);
  const double prediction = double(c.covered) / c.points, fit = double(c.fit_covered) / c.points;
  std::printf("known misfit: prediction intervals covered %.1f%%, fit intervals %.1f%% of %d\n",
              100 * prediction, 100 * fit, c.points);
  EXPECT_GE(prediction, 0.85);
  EXPECT_LE(fit, prediction - 0.15);
}

TEST(PredictionInterval, ACleanLawKeepsThePredictionIntervalCloseToTheFitInterval) {
  const Coverage c = backtestCoverage(0.0, 0.001, 10);
  ASSERT_GT(c.points, 50);
  const double ratio = median(c.pred_width) / median(c.fit_width);
  const Coverage bent = backtestCoverage(kBend, 0.001, 10);
  const double bent_ratio = median(bent.pred_width) / median(bent.fit_width);
  std::printf("clean law: prediction/fit width %.2f (covered %d of %d); bent law: %.2f\n", ratio,
              c.covered, c.points, bent_ratio);
  EXPECT_LT(ratio, 2.0);
  EXPECT_GT(bent_ratio, ratio);  // the misfit widens what needs it more than what does not
  EXPECT_GE(double(c.covered) / c.points, 0.9);
}

TEST(PredictionInterval, ThreeRungsForThreeParametersHaveNoIntervalNeverAPoint) {
  ResultsTable t = curvedLadder(0.0, 0.003, 7, /*rungs=*/3);
  FrontierOptions o = withBootstrap(50);
  o.at = {1e20, 1e22};
  const FrontierResult r = fitFrontier(t, o);
  ASSERT_EQ(r.loss_projections.size(), 2u);
  for (const ArmLossProjections& arm : r.loss_projections)
    for (const LossPrediction& p : arm.at) {
      EXPECT_TRUE(std::isnan(p.lo) && std::isnan(p.hi)) << arm.arm;
      EXPECT_FALSE(p.no_interval.empty());
    }
  EXPECT_NE(r.loss_projections[0].at[0].no_interval.find("3 rungs, 3 parameters"),
            std::string::npos)
      << r.loss_projections[0].at[0].no_interval;
  for (const ArmMultipliers& m : r.multipliers)
    for (const ProjectedMultiplier& p : m.projected) EXPECT_TRUE(std::isnan(p.ci_lo));
  // JSON: null, not a number; the table says why.
  const auto j = frontierToJson(r);
  EXPECT_TRUE(j.at("projections").at("vanilla").at(0).at("lo").is_null());
  EXPECT_NE(scalingTableMarkdown(r).find("no interval (3 rungs, 3 parameters)"), std::string::npos);
  // A backtest that leaves 3 rungs counts such a rung apart from covered and missed.
  const BacktestResult b = backtestFrontier(curvedLadder(0.0, 0.003, 7, 4), withBootstrap(50), 1);
  ASSERT_FALSE(b.points.empty());
  for (const BacktestPoint& p : b.points) {
    EXPECT_FALSE(p.has_interval);
    EXPECT_FALSE(p.covered);
  }
  const BacktestSummaryRow& all = b.summary.front();
  EXPECT_EQ(all.no_interval, all.points);
  EXPECT_EQ(all.missed, 0);
  EXPECT_EQ(all.covered, 0);
}

TEST(PredictionInterval, TheNestedBacktestNeverSeesTheRungsItHoldsOut) {
  // Two ladders that differ only in every arm's top rung: the k = 1 refit, its own nested
  // misfit and so its prediction and both intervals at the held-out rung must be identical.
  const ResultsTable clean = curvedLadder(-0.003, 0.002, 11);
  ResultsTable poisoned = clean;
  double top = 0;
  for (const RunPoint& p : clean.points) top = std::max(top, p.compute_flops);
  for (RunPoint& p : poisoned.points)
    if (p.compute_flops == top) p.val_loss *= 0.97;  // still below the rung before it
  const FrontierOptions o = withBootstrap(60);
  const BacktestResult a = backtestFrontier(clean, o, 1), b = backtestFrontier(poisoned, o, 1);
  ASSERT_EQ(a.points.size(), b.points.size());
  ASSERT_FALSE(a.points.empty());
  for (size_t i = 0; i < a.points.size(); ++i) {
    EXPECT_EQ(a.points[i].predicted_loss, b.points[i].predicted_loss);
    EXPECT_EQ(a.points[i].lo, b.points[i].lo);
    EXPECT_EQ(a.points[i].hi, b.points[i].hi);
    EXPECT_EQ(a.points[i].fit_lo, b.points[i].fit_lo);
    EXPECT_NE(a.points[i].measured_loss, b.points[i].measured_loss);
  }
}

TEST(PredictionInterval, MisfitModelFollowsItsFormula) {
  const MisfitPrior prior;  // base 0.05%, 2% per decade, weight 2
  // No samples: the prior itself.
  const MisfitModel none = estimateMisfit({}, 0, 0.95, prior);
  EXPECT_DOUBLE_EQ(none.per_decade, prior.per_decade);
  EXPECT_NEAR(none.quantile, 1.959964, 1e-5);
  EXPECT_NEAR(misfitSigma(none, 0.5), prior.base + 0.5 * prior.per_decade, 1e-15);
  EXPECT_DOUBLE_EQ(misfitSigma(none, -1.0), prior.base);
  // One arm whose errors grow exactly 5% per decade (b = 0.05), 4 samples:
  // s^2 = (2 * 0.02^2 + 4 * 0.05^2) / 6.
  std::vector<MisfitSample> samples = {
      {"a", 0.01, 0.2}, {"a", 0.02, 0.4}, {"a", 0.03, 0.6}, {"a", 0.04, 0.8}};
  const MisfitModel m = estimateMisfit(samples, 2, 0.95, prior);
  EXPECT_NEAR(m.per_decade, std::sqrt((2 * 0.0004 + 4 * 0.0025) / 6), 1e-12);
  EXPECT_EQ(m.points, 4);
  // Scatter of both signs around zero averages out of b: close to the prior shrunk by weight.
  std::vector<MisfitSample> scatter = {
      {"a", 0.01, 0.5}, {"a", -0.01, 0.5}, {"b", 0.01, 0.5}, {"b", -0.01, 0.5}};
  EXPECT_NEAR(estimateMisfit(scatter, 1, 0.95, prior).per_decade, std::sqrt(2 * 0.0004 / 6), 1e-12);
  // Widening: each side in quadrature.
  const Interval w = widenByMisfit(2.0, 1.9, 2.3, 0.4);
  EXPECT_NEAR(w.lo, 2.0 - std::hypot(0.1, 0.4), 1e-12);
  EXPECT_NEAR(w.hi, 2.0 + std::hypot(0.3, 0.4), 1e-12);
}

TEST(PredictionInterval, EveryProjectionCarriesBothIntervalsAndNamesThem) {
  const FrontierResult r = fitFrontier(curvedLadder(-0.002, 0.002, 3), withBootstrap(80));
  ASSERT_EQ(r.loss_projections.size(), 2u);
  const LossPrediction& p = r.loss_projections[1].at[0];
  EXPECT_LE(p.lo, p.fit_lo);
  EXPECT_GE(p.hi, p.fit_hi);
  EXPECT_LT(p.fit_lo, p.loss);
  const ProjectedMultiplier& m = r.multipliers[0].projected[0];
  EXPECT_LE(m.ci_lo, m.fit_lo);
  EXPECT_GE(m.ci_hi, m.fit_hi);
  const auto j = frontierToJson(r);
  const auto& jm = j.at("multipliers").at("deep").at("projected").at(0);
  EXPECT_DOUBLE_EQ(jm.at("lo").get<double>(), m.ci_lo);
  EXPECT_DOUBLE_EQ(jm.at("fit_lo").get<double>(), m.fit_lo);
  EXPECT_TRUE(j.at("misfit").is_object());
  const std::string md = scalingTableMarkdown(r);
  EXPECT_NE(md.find("prediction interval"), std::string::npos);
  EXPECT_NE(md.find("Projected loss"), std::string::npos);
}

}  // namespace
}  // namespace deepladder::fitting
