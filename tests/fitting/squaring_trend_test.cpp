// Squaring-ladder trends and tables on constructed runs: least squares against log10 compute
// recovers an exact line (a, b, R^2 = 1, zero standard errors) and a known noisy one (numbers
// from numpy.polyfit on the same five points, see the comment there), lines need two distinct
// computes and standard errors three, depth rungs count the doubling ladder, and every export
// format carries the runs and the fits.
#include "fitting/squaring_trend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "fitting/squaring_table.h"

namespace deepladder::fitting {
namespace {

TEST(SquaringTrend, DepthRungsCountTheDoublingLadder) {
  EXPECT_EQ(depthRungsCleared(0), 0);
  EXPECT_EQ(depthRungsCleared(1), 1);
  EXPECT_EQ(depthRungsCleared(2), 2);
  EXPECT_EQ(depthRungsCleared(4), 3);
  EXPECT_EQ(depthRungsCleared(64), 7);
}

TEST(SquaringTrend, ExactLineIsRecovered) {
  // y = 0.3 + 0.15 log10(C / 1e15) at four computes.
  const std::vector<double> c = {1e13, 1e14, 1e15, 1e16};
  std::vector<double> y;
  for (double v : c) y.push_back(0.3 + 0.15 * std::log10(v / 1e15));
  const auto t = fitLogComputeTrend(c, y, 1e15);
  ASSERT_TRUE(t.defined);
  EXPECT_EQ(t.points, 4);
  EXPECT_NEAR(t.a, 0.3, 1e-12);
  EXPECT_NEAR(t.b, 0.15, 1e-12);
  EXPECT_NEAR(t.r2, 1.0, 1e-12);
  EXPECT_NEAR(t.b_se, 0.0, 1e-9);
  EXPECT_NEAR(t.computeReaching(1.0, 1e15), 1e15 * std::pow(10.0, 0.7 / 0.15), 1e5);
}

TEST(SquaringTrend, NoisyLineMatchesNumpyPolyfit) {
  // x = log10(C/1e15) = -2, -1, 0, 1, 2; y = 0.1, 0.35, 0.4, 0.7, 0.8.
  // numpy.polyfit(x, y, 1, cov=True) -> b = 0.175, a = 0.47, standard errors (sqrt of the
  // covariance diagonal, scaled by SSE / (n - 2)) 0.01979057 and 0.02798809; SSE = 0.01175,
  // R^2 = 1 - SSE / SST = 0.96305031.
  const std::vector<double> c = {1e13, 1e14, 1e15, 1e16, 1e17};
  const std::vector<double> y = {0.1, 0.35, 0.4, 0.7, 0.8};
  const auto t = fitLogComputeTrend(c, y, 1e15);
  EXPECT_NEAR(t.b, 0.175, 1e-12);
  EXPECT_NEAR(t.a, 0.47, 1e-12);
  EXPECT_NEAR(t.b_se, 0.01979057, 1e-8);
  EXPECT_NEAR(t.a_se, 0.02798809, 1e-8);
  EXPECT_NEAR(t.r2, 0.96305031, 1e-8);
}

TEST(SquaringTrend, LinesNeedTwoComputesAndErrorsThree) {
  EXPECT_FALSE(fitLogComputeTrend({1e14, 1e14}, {0.1, 0.2}, 1e15).defined);
  const auto two = fitLogComputeTrend({1e14, 1e15}, {0.1, 0.2}, 1e15);
  EXPECT_TRUE(two.defined);
  EXPECT_NEAR(two.b, 0.1, 1e-12);
  EXPECT_TRUE(std::isnan(two.b_se));
  EXPECT_TRUE(std::isnan(fitLogComputeTrend({1e14, 1e15}, {0.2, 0.1}, 1e15)
                             .computeReaching(1.0, 1e15)));  // falling: never reaches 1
}

std::vector<SquaringRunPoint> ladderRuns() {
  return {{"looped", 3, 4e13, 2, 1, 0.5, 0.9, true, ""},
          {"baseline", 1, 1e13, 0, 0, 0.0, 0.1, true, ""},
          {"looped", 2, 4e12, 1, 0, 0.25, 0.6, true, ""},
          {"baseline", 4, 1e14, 1, 0, 0.1, 0.4, true, ""},
          {"looped", 5, 4e14, 64, 4, 1.0, 1.0, false, "squaring.deep_supervision"}};
}

TEST(SquaringTrend, SummaryGroupsByArmSortsByComputeAndFitsBoth) {
  const auto s = summarizeSquaringLadder(ladderRuns(), 1e15);
  ASSERT_EQ(s.arms.size(), 2u);
  EXPECT_EQ(s.arms[0].arm, "baseline");
  EXPECT_EQ(s.arms[1].arm, "looped");
  ASSERT_EQ(s.arms[1].runs.size(), 3u);
  EXPECT_EQ(s.arms[1].runs[0].run_id, 2);
  EXPECT_EQ(s.arms[1].runs[2].run_id, 5);
  // baseline: two points, ood 0 -> 0.1 over one decade; rungs 0 -> 1.
  EXPECT_NEAR(s.arms[0].ood_exact.b, 0.1, 1e-12);
  EXPECT_NEAR(s.arms[0].rungs_seen.b, 1.0, 1e-12);
  // looped: ood 0.25, 0.5, 1.0 at x = -2.398, -1.398, -0.398: one decade apart.
  EXPECT_NEAR(s.arms[1].ood_exact.b, 0.375, 1e-12);
  EXPECT_EQ(s.arms[1].rungs_seen.points, 3);
  EXPECT_THROW(summarizeSquaringLadder({}, 1e15), UserError);
  EXPECT_THROW(summarizeSquaringLadder({{"a", 1, 0.0, 0, 0, 0, 0, true, ""}}, 1e15), UserError);
}

TEST(SquaringTable, EveryFormatCarriesRunsAndFits) {
  const auto s = summarizeSquaringLadder(ladderRuns(), 1e15);
  const std::string md = squaringTable(s, "md");
  EXPECT_NE(md.find("| looped | 5 | 4e+14 | 64 | 4 | 1 | 1 | no (squaring.deep_supervision) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| looped | 3 | 4e+13 | 2 | 1 | 0.5 | 0.9 | yes |"), std::string::npos) << md;
  EXPECT_NE(md.find("admissible: no = "), std::string::npos) << md;
  EXPECT_NE(md.find("| looped | OOD exact | 3 |"), std::string::npos) << md;
  EXPECT_NE(md.find("0.375"), std::string::npos) << md;

  const std::string csv = squaringTable(s, "csv");
  EXPECT_EQ(csv.rfind("arm,run_id,quantity,compute,value,se\n", 0), 0u);
  EXPECT_NE(csv.find("looped,5,max_t_seen,4e+14,64,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("looped,5,admissible,4e+14,0,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("looped,3,admissible,4e+13,1,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("baseline,,ood_exact.b,,0.1,\n"), std::string::npos) << csv;  // 2 runs: no se
  EXPECT_NE(csv.find("looped,,rungs_seen.b,,"), std::string::npos) << csv;

  const std::string tex = squaringTable(s, "tex");
  EXPECT_NE(tex.find("\\toprule"), std::string::npos);
  EXPECT_NE(tex.find("looped & 5 & $4e+14$ & 64 & 4 & 1 & 1 & no (squaring.deep\\_supervision) "
                     "\\\\"),
            std::string::npos)
      << tex;
  EXPECT_NE(tex.find("looped & 3 & $4e+13$ & 2 & 1 & 0.5 & 0.9 & yes \\\\"), std::string::npos)
      << tex;

  const auto json = nlohmann::json::parse(squaringTable(s, "json"));
  EXPECT_EQ(json["task"], "squaring");
  EXPECT_DOUBLE_EQ(json["c_ref"].get<double>(), 1e15);
  ASSERT_EQ(json["arms"].size(), 2u);
  EXPECT_EQ(json["arms"][1]["runs"][2]["max_t_seen"], 64);
  EXPECT_EQ(json["arms"][1]["runs"][2]["admissible"], false);
  EXPECT_EQ(json["arms"][1]["runs"][2]["inadmissible_options"], "squaring.deep_supervision");
  EXPECT_EQ(json["arms"][1]["runs"][0]["admissible"], true);
  EXPECT_NEAR(json["arms"][1]["fits"]["ood_exact"]["b"].get<double>(), 0.375, 1e-12);
  EXPECT_TRUE(json["arms"][0]["fits"]["ood_exact"]["b_se"].is_null());

  EXPECT_THROW(squaringTable(s, "xlsx"), UserError);
}

}  // namespace
}  // namespace deepladder::fitting
