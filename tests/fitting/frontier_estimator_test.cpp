// The two frontier estimators (fitting/frontier_estimator.h) on synthetic ladders: the paper
// estimator recovers known A and gamma from noise-free E-fixed data to 1e-9, its standard error is
// the OLS formula and its interval the Student-t one; paper and robust differ as they should (same
// baseline, each E-shared arm at the optimum of its own objective); bootstraps resample with the
// estimator asked for; an arm with a point at or below E gets no fit under paper and says why;
// --joint is refused under paper.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "fitting/frontier_fit.h"
#include "fitting/log_excess_line.h"
#include "synthetic_data.h"

namespace deepladder::fitting {
namespace {

using testing::syntheticLadder;
using testing::TrueArm;

FrontierOptions optionsFor(FrontierEstimator estimator, int bootstrap = 0) {
  FrontierOptions o = defaultFrontierOptions();
  o.estimator = estimator;
  o.bootstrap = bootstrap;
  return o;
}

std::vector<double> computesOf(const ResultsTable& t, const std::string& arm) {
  std::vector<double> v;
  for (const auto& p : t.points)
    if (p.arm == arm) v.push_back(p.compute_flops);
  return v;
}

std::vector<double> lossesOf(const ResultsTable& t, const std::string& arm) {
  std::vector<double> v;
  for (const auto& p : t.points)
    if (p.arm == arm) v.push_back(p.val_loss);
  return v;
}

// sum_i (ln(L_i - E) - ln A + gamma ln(C_i/C0))^2: the paper estimator's objective.
double logSquares(const ResultsTable& t, const std::string& arm, double E, double A, double gamma) {
  double s = 0;
  for (const auto& p : t.points)
    if (p.arm == arm) {
      const double r =
          std::log(p.val_loss - E) - std::log(A) + gamma * std::log(p.compute_flops / 1e18);
      s += r * r;
    }
  return s;
}

// sum_i rho(r_i), r_i = E + A (C_i/C0)^-gamma - L_i, rho = Huber with `delta` (squares when 0):
// the robust estimator's final objective.
double huberInLoss(const ResultsTable& t, const std::string& arm, double E, double A, double gamma,
                   double delta) {
  double s = 0;
  for (const auto& p : t.points)
    if (p.arm == arm) {
      const double r = std::fabs(E + A * std::pow(p.compute_flops / 1e18, -gamma) - p.val_loss);
      s += delta > 0 && r > delta ? 2 * delta * r - delta * delta : r * r;
    }
  return s;
}

TEST(PaperEstimator, LineRecoversKnownGammaAndAFromNoiseFreeEFixedData) {
  const std::vector<TrueArm> truth = {{"deep", 1.8, 1.15, 0.117}};
  const auto t = syntheticLadder(truth, 8, 0.0, 1);
  const auto line = fitLogExcessLine(computesOf(t, "deep"), lossesOf(t, "deep"), 1.8, 1e18);
  ASSERT_TRUE(line.has_value());
  EXPECT_NEAR(line->gamma, 0.117, 1e-9);
  EXPECT_NEAR(line->A, 1.15, 1e-9);
  EXPECT_EQ(line->dof, 6);
  EXPECT_LT(line->slope_se, 1e-12);  // the points lie on the line
}

TEST(PaperEstimator, FitRecoversKnownGammaAndAOfEverySharedArmNoiseFree) {
  // Baseline and two arms sharing E = 1.8, 8 noise-free rungs: the baseline's Huber fit returns
  // E, every other arm's OLS line A and gamma, all to 1e-9.
  const std::vector<TrueArm> truth = {
      {"vanilla", 1.8, 1.2, 0.111}, {"growth-bop", 1.8, 1.15, 0.117}, {"loop", 1.8, 1.1, 0.125}};
  const auto r =
      fitFrontier(syntheticLadder(truth, 8, 0.0, 1), optionsFor(FrontierEstimator::Paper));
  ASSERT_EQ(r.arms.size(), 3u);
  EXPECT_NEAR(r.arms[0].E, 1.8, 1e-9);
  for (size_t a = 0; a < 3; ++a) {
    SCOPED_TRACE(truth[a].name);
    EXPECT_EQ(r.arms[a].arm, truth[a].name);
    EXPECT_NEAR(r.arms[a].A, truth[a].A, 1e-9);
    EXPECT_NEAR(r.arms[a].gamma, truth[a].gamma, 1e-9);
  }
  EXPECT_EQ(r.arms[1].method, "ols_log_excess_e_fixed");
  EXPECT_FALSE(r.arms[1].E_free);
}

TEST(PaperEstimator, StandardErrorIsTheOlsFormulaAndTheIntervalStudentT) {
  // One arm 1% off its curve (seeded noise): se(b1) = sqrt(s^2 n / (n Sxx' - Sx^2)) with
  // uncentred sums, s^2 = SSR / (n - 2), computed here independently of the fitter.
  const std::vector<TrueArm> truth = {{"vanilla", 1.8, 1.2, 0.111},
                                      {"growth-bop", 1.8, 1.15, 0.117}};
  auto table = syntheticLadder(truth, 8, 0.0, 1);
  const auto noisy = syntheticLadder({truth[1]}, 8, 0.01, 4);
  for (size_t i = 0; i < noisy.points.size(); ++i) table.points[8 + i] = noisy.points[i];
  const auto r = fitFrontier(table, optionsFor(FrontierEstimator::Paper));
  const ArmFit& arm = r.arms[1];
  const double E = r.arms[0].E;

  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  std::vector<double> x, y;
  for (const auto& p : table.points)
    if (p.arm == "growth-bop") {
      x.push_back(std::log(p.compute_flops / 1e18));
      y.push_back(std::log(p.val_loss - E));
      n += 1, sx += x.back(), sy += y.back(), sxx += x.back() * x.back(),
          sxy += x.back() * y.back();
    }
  const double b1 = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double b0 = (sy - b1 * sx) / n;
  double ssr = 0;
  for (size_t i = 0; i < x.size(); ++i) ssr += std::pow(y[i] - b0 - b1 * x[i], 2);
  const double se = std::sqrt(ssr / (n - 2) * n / (n * sxx - sx * sx));

  EXPECT_NEAR(arm.gamma, -b1, 1e-12);
  EXPECT_NEAR(arm.A, std::exp(b0), 1e-12);
  EXPECT_NEAR(arm.gamma_se / se, 1.0, 1e-9);
  EXPECT_GT(arm.gamma_se, 1e-4);
  EXPECT_EQ(arm.dof, 6);
  // scipy.stats.t.ppf(0.975, 6) = 2.4469118487916806 (itself good to ~1e-9)
  EXPECT_NEAR(arm.gamma_t_lo, arm.gamma - 2.4469118487916806 * se, 1e-10);
  EXPECT_NEAR(arm.gamma_t_hi, arm.gamma + 2.4469118487916806 * se, 1e-10);
}

TEST(PaperEstimator, PaperAndRobustDifferAsExpectedOnTheSameData) {
  // Both estimators fit the baseline alike (E free, Huber) and so agree on E. The E-shared arm:
  // paper's A, gamma minimise the squares of ln(L - E) and robust's the Huber loss in L; each
  // wins on its own objective, and the exponents differ.
  const auto table = syntheticLadder(testing::designDocArms(), 8, 0.01, 12);
  const auto paper = fitFrontier(table, optionsFor(FrontierEstimator::Paper));
  const auto robust = fitFrontier(table, optionsFor(FrontierEstimator::Robust));
  EXPECT_EQ(paper.estimator, FrontierEstimator::Paper);
  EXPECT_EQ(robust.estimator, FrontierEstimator::Robust);
  EXPECT_NEAR(paper.arms[0].E, robust.arms[0].E, 1e-5);
  EXPECT_NEAR(paper.arms[0].gamma, robust.arms[0].gamma, 1e-5);

  const ArmFit& p = paper.arms[1];
  const ArmFit& q = robust.arms[1];
  EXPECT_EQ(q.method, "nls_huber_e_fixed");
  EXPECT_GT(std::fabs(p.gamma - q.gamma), 1e-4);
  const double E = paper.arms[0].E;
  EXPECT_LT(logSquares(table, p.arm, E, p.A, p.gamma), logSquares(table, p.arm, E, q.A, q.gamma));
  EXPECT_LT(huberInLoss(table, q.arm, q.E, q.A, q.gamma, q.huber_delta),
            huberInLoss(table, q.arm, q.E, p.A, p.gamma, q.huber_delta));
  // Multipliers follow each estimator's fits.
  EXPECT_NEAR(paper.multipliers[0].per_decade, std::pow(10.0, 1.0 - paper.arms[0].gamma / p.gamma),
              1e-12);
  EXPECT_NEAR(robust.multipliers[0].per_decade,
              std::pow(10.0, 1.0 - robust.arms[0].gamma / q.gamma), 1e-12);
}

TEST(PaperEstimator, BootstrapResamplesWithTheSameEstimator) {
  // The E-shared arm lies on its curve except one rung 4% high. Ordinary least squares of
  // ln(L - E) follows the outlier; the robust Huber refit does not. Each bootstrap's median
  // gamma sits by its own estimator's point estimate, not by the other one.
  auto table = syntheticLadder(testing::designDocArms(), 8, 0.0, 1);
  table.points[8 + 6].val_loss *= 1.04;
  const auto paper = fitFrontier(table, optionsFor(FrontierEstimator::Paper, 200));
  const auto robust = fitFrontier(table, optionsFor(FrontierEstimator::Robust, 200));
  auto median_gamma = [](const FrontierResult& r) {
    std::vector<double> g;
    for (const auto& draw : r.bootstrap_draws) g.push_back(draw[1].gamma);
    return percentile(g, 0.5);
  };
  const double paper_point = paper.arms[1].gamma, robust_point = robust.arms[1].gamma;
  ASSERT_GT(std::fabs(paper_point - robust_point), 1e-3);
  const double paper_median = median_gamma(paper), robust_median = median_gamma(robust);
  EXPECT_LT(std::fabs(paper_median - paper_point), std::fabs(paper_median - robust_point));
  EXPECT_LT(std::fabs(robust_median - robust_point), std::fabs(robust_median - paper_point));
  EXPECT_EQ(paper.arms[1].bootstrap_used, paper.bootstrap_used);
}

TEST(PaperEstimator, AnArmWithAPointAtOrBelowTheSharedEHasNoFitAndSaysWhy) {
  // The deep arm's losses fall below the baseline's E = 2: ln(L - E) is undefined there, so the
  // paper estimator (like the paper's code, which gets NaN) leaves that arm without a fit; the
  // other arm is fitted as usual. The robust estimator fits it in loss space.
  const std::vector<TrueArm> truth = {
      {"vanilla", 2.0, 1.0, 0.1}, {"deep", 1.0, 1.0, 0.1}, {"wide", 2.0, 0.95, 0.1}};
  const auto table = syntheticLadder(truth, 6, 0.0, 1);
  const auto r = fitFrontier(table, optionsFor(FrontierEstimator::Paper, 20));
  ASSERT_EQ(r.arms[1].arm, "deep");
  EXPECT_TRUE(std::isnan(r.arms[1].gamma));
  EXPECT_TRUE(std::isnan(r.arms[1].A));
  EXPECT_NE(r.arms[1].no_fit.find("synthetic: arm deep: no fit: loss"), std::string::npos)
      << r.arms[1].no_fit;
  EXPECT_NE(r.arms[1].no_fit.find("at or below the irreducible loss E = 2"), std::string::npos);
  EXPECT_NE(r.arms[1].no_fit.find("--estimator robust"), std::string::npos);
  // Resamples that drew only deep's early rungs (above E) do fit it, but an arm without a point
  // fit gets no intervals and no band.
  EXPECT_LT(r.arms[1].bootstrap_used, r.bootstrap_used);
  EXPECT_TRUE(std::isnan(r.arms[1].gamma_ci_lo));
  EXPECT_TRUE(std::isnan(r.multipliers[0].projected[0].ci_hi));
  for (const auto& draw : r.bootstrap_draws) EXPECT_TRUE(std::isnan(draw[1].gamma));
  EXPECT_TRUE(std::isfinite(r.arms[2].gamma_ci_lo));
  EXPECT_EQ(r.arms[2].bootstrap_used, r.bootstrap_used);
  EXPECT_TRUE(std::isnan(r.multipliers[0].projected[0].multiplier));
  EXPECT_TRUE(r.arms[2].no_fit.empty());
  EXPECT_NEAR(r.arms[2].gamma, 0.1, 1e-9);
  const auto robust = fitFrontier(table, optionsFor(FrontierEstimator::Robust));
  EXPECT_TRUE(std::isfinite(robust.arms[1].gamma));
  EXPECT_TRUE(robust.arms[1].no_fit.empty());
}

TEST(PaperEstimator, JointNeedsTheRobustEstimator) {
  FrontierOptions o = optionsFor(FrontierEstimator::Paper);
  o.joint = true;
  EXPECT_THROW(fitFrontier(syntheticLadder(testing::designDocArms(), 6, 0.0, 1), o), UserError);
  EXPECT_EQ(parseEstimator("robust"), FrontierEstimator::Robust);
  EXPECT_EQ(estimatorName(parseEstimator("paper")), "paper");
  EXPECT_THROW(parseEstimator("ols"), UserError);
  EXPECT_EQ(defaultFrontierOptions().estimator, FrontierEstimator::Paper);
}

}  // namespace
}  // namespace deepladder::fitting
