// Backtests (fitting/backtest.h): on noise-free laws every held-out prediction is exact; under a
// known curvature of ln(L - E) the error is the one an ordinary least-squares line makes, with
// its sign; a ladder too short to hold out is reported, not crashed; the JSON carries exactly
// the fields and the same numbers as the CSV table.
#include "fitting/backtest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "fitting/backtest_table.h"
#include "fitting/frontier_model.h"
#include "synthetic_data.h"

namespace deepladder::fitting {
namespace {

using testing::designDocArms;
using testing::syntheticLadder;

FrontierOptions quickOptions(int bootstrap = 0) {
  FrontierOptions o = defaultFrontierOptions();
  o.bootstrap = bootstrap;
  return o;
}

TEST(Backtest, NoiseFreeLawPredictsEveryHeldOutRungExactly) {
  const auto truth = designDocArms();
  const ResultsTable table = syntheticLadder(truth, 8, 0.0, 1);
  const BacktestResult r = backtestFrontier(table, quickOptions(), 3);
  ASSERT_EQ(r.points.size(), 2u * (1 + 2 + 3));  // two arms, k = 1..3
  EXPECT_TRUE(r.skipped.empty());
  for (const auto& p : r.points) {
    SCOPED_TRACE(p.arm + " k=" + std::to_string(p.k) + " rank=" + std::to_string(p.rank));
    EXPECT_NEAR(p.predicted_loss / p.measured_loss, 1.0, 1e-9);
    EXPECT_NEAR(p.rel_error, 0.0, 1e-9);
    // Rungs half a decade apart: the rank-r rung lies 10^(r/2) above the top rung kept.
    EXPECT_NEAR(p.extrapolation, std::pow(10.0, 0.5 * (p.k - p.rank + 1)), 1e-6);
    if (p.arm != "vanilla") {  // the deeper arm's multiplier at the baseline's rung of that rank
      EXPECT_NEAR(p.predicted_multiplier,
                  projectedMultiplier(p.multiplier_compute, 1e18, truth[0].A, truth[0].gamma,
                                      truth[1].A, truth[1].gamma),
                  1e-6);
      if (std::isfinite(p.measured_multiplier)) {  // log-linear interpolation: close, not exact
        EXPECT_NEAR(p.measured_multiplier / p.predicted_multiplier, 1.0, 2e-2);
      }
    }
  }
  ASSERT_EQ(r.lines.size(), 3u);
  EXPECT_EQ(r.lines[1].rfind("held out 2 top rungs per arm: mean |error| 0.00%, bias", 0), 0u)
      << r.lines[1];
  EXPECT_NE(r.lines[0].find("held out 1 top rung per arm"), std::string::npos);
}

// ln(L - E) = ln A - gamma x + c x^2, x = ln(C/C0), for the non-baseline arm (the baseline is an
// exact power law, so the shared E is exact): the paper estimator's OLS line through the kept
// rungs misses the held-out ln excess by c (x_h^2 - q(x_h)), q the OLS line of x^2 on x over the
// kept rungs. With c < 0 the excess falls faster than any line, so the loss is over-predicted.
TEST(Backtest, CurvatureGivesTheLeastSquaresLinesKnownBias) {
  const double E = 1.8, A = 1.15, gamma = 0.117, c = -0.004;
  ResultsTable table = syntheticLadder({designDocArms()[0]}, 8, 0.0, 1);
  std::vector<double> xs;
  for (int i = 0; i < 8; ++i) {
    RunPoint p;
    p.arm = "curved";
    p.compute_flops = 1e17 * std::pow(10.0, 0.5 * i);
    const double x = std::log(p.compute_flops / 1e18);
    xs.push_back(x);
    p.val_loss = E + A * std::exp(-gamma * x + c * x * x);
    table.points.push_back(p);
  }
  const BacktestResult r = backtestFrontier(table, quickOptions(), 3);
  double previous_bias = 0;
  for (const auto& row : r.summary) {
    if (row.arm != "curved") continue;
    EXPECT_GT(row.bias, previous_bias) << "k=" << row.k;  // over-predicted, more with distance
    previous_bias = row.bias;
  }
  for (const auto& p : r.points) {
    if (p.arm != "curved") continue;
    const int kept = 8 - p.k;
    double mx = 0, my = 0;
    for (int i = 0; i < kept; ++i) mx += xs[i] / kept, my += xs[i] * xs[i] / kept;
    double sxy = 0, sxx = 0;
    for (int i = 0; i < kept; ++i)
      sxy += (xs[i] - mx) * (xs[i] * xs[i] - my), sxx += (xs[i] - mx) * (xs[i] - mx);
    const double xh = std::log(p.compute / 1e18);
    const double line = my + sxy / sxx * (xh - mx);
    const double expected = E + A * std::exp(-gamma * xh + c * xh * xh - c * (xh * xh - line));
    SCOPED_TRACE("k=" + std::to_string(p.k) + " rank=" + std::to_string(p.rank));
    EXPECT_NEAR(p.predicted_loss / expected, 1.0, 1e-9);
    EXPECT_GT(p.rel_error, 0.0);
  }
}

TEST(Backtest, TooShortLadderIsReportedNotCrashed) {
  // Baseline 4 rungs, other arm 3: k = 1 holds out the baseline only; k = 2 nothing.
  ResultsTable table = syntheticLadder({designDocArms()[0]}, 4, 0.0, 1);
  const ResultsTable arm = syntheticLadder({designDocArms()[1]}, 3, 0.0, 1);
  table.points.insert(table.points.end(), arm.points.begin(), arm.points.end());
  BacktestResult r;
  ASSERT_NO_THROW(r = backtestFrontier(table, quickOptions(), 2));
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_EQ(r.points[0].arm, "vanilla");
  EXPECT_EQ(r.points[0].k, 1);
  std::set<std::pair<std::string, int>> skipped;
  for (const auto& s : r.skipped) {
    skipped.insert({s.arm, s.k});
    EXPECT_NE(s.reason.find("fewer than the 3"), std::string::npos) << s.reason;
  }
  EXPECT_EQ(skipped, (std::set<std::pair<std::string, int>>{
                         {"growth-bop", 1}, {"vanilla", 2}, {"growth-bop", 2}}));
  EXPECT_EQ(r.lines.at(1), "held out 2 top rungs per arm: no rung could be held out");
}

// Hoffmann et al.'s published law (their eq. 10) on a 6 x 6 grid of sizes and token counts, as in
// chinchilla_test.cpp: the largest-6ND points held out are predicted by approach 3 refitted on
// the rest, to its convergence tolerance (no intervals: approach 3 has no bootstrap).
TEST(Backtest, ChinchillaNoiseFreeLawPredictsTheLargestComputePoints) {
  std::vector<SizePoint> pts;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      const double n = 1e7 * std::pow(10.0, 0.6 * i), d = 1e9 * std::pow(10.0, 0.6 * j);
      pts.push_back({n, d, 1.69 + 406.4 / std::pow(n, 0.34) + 410.7 / std::pow(d, 0.28), kNaN});
    }
  const BacktestResult r = backtestChinchilla(pts, defaultChinchillaOptions(), 2);
  ASSERT_EQ(r.points.size(), 3u);
  for (const auto& p : r.points) {
    EXPECT_EQ(p.arm, "all");
    EXPECT_NEAR(p.rel_error, 0.0, 1e-9) << "k=" << p.k;
    EXPECT_FALSE(p.has_interval);
    EXPECT_GE(p.extrapolation, 1.0);
  }
  EXPECT_EQ(r.lines[0].rfind("held out the 1 point of largest compute: mean |error| 0.00%", 0), 0u)
      << r.lines[0];
}

TEST(Backtest, ChinchillaTooFewPointsIsReported) {
  std::vector<SizePoint> pts;
  for (int i = 0; i < 4; ++i) pts.push_back({1e8 * (i + 1), 2e9 * (i + 1), 3.0 - 0.1 * i, kNaN});
  BacktestResult r;
  ASSERT_NO_THROW(r = backtestChinchilla(pts, defaultChinchillaOptions(), 2));
  EXPECT_TRUE(r.points.empty());
  ASSERT_EQ(r.skipped.size(), 2u);  // k = 1: approach 3 needs 5 points; k = 2: 2 left
}

TEST(Backtest, RejectsKBelowOne) {
  EXPECT_THROW(backtestFrontier(syntheticLadder(designDocArms(), 6, 0.0, 1), quickOptions(), 0),
               UserError);
}

TEST(Backtest, JsonHasExactlyTheFieldsAndMatchesTheCsvTable) {
  const ResultsTable table = syntheticLadder(designDocArms(), 7, 0.004, 3);
  const BacktestResult r = backtestFrontier(table, quickOptions(50), 2);
  const nlohmann::json j = backtestToJson(r);
  ASSERT_TRUE(j.at("backtest").is_array());
  ASSERT_EQ(j.at("backtest").size(), r.points.size());
  const std::set<std::string> base = {
      "arm", "k",       "compute", "measured_loss", "predicted_loss", "rel_error",    "lo",
      "hi",  "covered", "fit_lo",  "fit_hi",        "no_interval",    "extrapolation"};
  std::set<std::string> with_m = base;
  with_m.insert({"measured_multiplier", "predicted_multiplier"});
  int with_multiplier = 0;
  std::istringstream csv(backtestTableCsv(r));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line,
            "arm,k,compute,measured_loss,predicted_loss,rel_error,lo,hi,covered,fit_lo,fit_hi,"
            "extrapolation,measured_multiplier,predicted_multiplier");
  for (const auto& e : j.at("backtest")) {
    std::set<std::string> keys;
    for (const auto& [key, value] : e.items()) keys.insert(key);
    EXPECT_TRUE(keys == base || keys == with_m) << e.dump();
    with_multiplier += keys == with_m;
    ASSERT_TRUE(std::getline(csv, line));
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    cells.resize(14);
    EXPECT_EQ(cells[0], e.at("arm").get<std::string>());
    EXPECT_EQ(std::stoi(cells[1]), e.at("k").get<int>());
    for (auto [col, key] : {std::pair{2, "compute"},
                            {3, "measured_loss"},
                            {4, "predicted_loss"},
                            {5, "rel_error"},
                            {6, "lo"},
                            {7, "hi"},
                            {9, "fit_lo"},
                            {10, "fit_hi"},
                            {11, "extrapolation"}})
      EXPECT_DOUBLE_EQ(std::stod(cells[col]), e.at(key).get<double>()) << key;
    EXPECT_EQ(cells[8], e.at("covered").get<bool>() ? "true" : "false");
    const double rel =
        (e.at("predicted_loss").get<double>() - e.at("measured_loss").get<double>()) /
        e.at("measured_loss").get<double>();
    EXPECT_NEAR(e.at("rel_error").get<double>(), rel, 1e-15);
    EXPECT_EQ(e.at("covered").get<bool>(),
              e.at("lo").get<double>() <= e.at("measured_loss").get<double>() &&
                  e.at("measured_loss").get<double>() <= e.at("hi").get<double>());
  }
  EXPECT_GT(with_multiplier, 0);
  const nlohmann::json& s = j.at("backtest_summary");
  EXPECT_EQ(s.at("lines").size(), 2u);
  int all_points = 0, all_covered = 0;
  for (const auto& g : s.at("groups"))
    if (g.at("arm") == "all" && g.at("k") == 2)
      all_points = g.at("points").get<int>(), all_covered = g.at("covered").get<int>();
  EXPECT_EQ(all_points, 2 * 2);
  EXPECT_NE(
      s.at("lines")[1].get<std::string>().find("covered " + std::to_string(all_covered) + " of 4"),
      std::string::npos);
}

}  // namespace
}  // namespace deepladder::fitting
