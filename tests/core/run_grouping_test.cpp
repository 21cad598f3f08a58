// Grouping runs by option values and collapsing seeds (core/run_grouping.h), and the scatter's
// summary statistics and spec JSON (core/scatter_spec.h). The seed-collapse fixture's numbers come
// from NumPy 1.24.2 (Debian's python3-numpy), by this snippet:
//   c = [(np.array([0,10,20,30,40,50.]), np.array([5.0,4.1,3.5,3.2,3.0,2.9])),
//        (np.array([5,15,25,35,45,60.]), np.array([4.8,3.9,3.4,3.1,2.95,2.8])),
//        (np.array([2,12,22,32,42,48.]), np.array([5.2,4.3,3.7,3.3,3.1,3.0]))]
//   lo = max(x[0] for x, _ in c); hi = min(x[-1] for x, _ in c)
//   g = np.linspace(lo, hi, 7); Y = np.array([np.interp(g, x, y) for x, y in c])
//   Y.mean(0), Y.min(0), Y.max(0), Y.std(0, ddof=1)
//   gl = np.geomspace(lo, hi, 5); np.array([np.interp(gl, x, y) for x, y in c]).mean(0)
#include "core/run_grouping.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/run_option_values.h"
#include "core/scatter_spec.h"

namespace deepladder {
namespace {

struct NumpyCurves {
  std::vector<std::vector<double>> x = {
      {0, 10, 20, 30, 40, 50}, {5, 15, 25, 35, 45, 60}, {2, 12, 22, 32, 42, 48}};
  std::vector<std::vector<double>> y = {{5.0, 4.1, 3.5, 3.2, 3.0, 2.9},
                                        {4.8, 3.9, 3.4, 3.1, 2.95, 2.8},
                                        {5.2, 4.3, 3.7, 3.3, 3.1, 3.0}};
  std::vector<CurveRef> refs() const {
    std::vector<CurveRef> out;
    for (size_t i = 0; i < x.size(); ++i) out.push_back({&x[i], &y[i]});
    return out;
  }
};

void expectNear(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(SeedCollapse, MeanAndMinMaxBandEqualNumpyOnKnownCurves) {
  const NumpyCurves c;
  const CollapsedCurve out = collapseCurves(c.refs(), SeedBand::kMinMax, 7);
  EXPECT_EQ(out.runs, 3);
  expectNear(out.x,
             {5.0, 12.166666666666668, 19.333333333333336, 26.5, 33.66666666666667,
              40.833333333333336, 48.0},
             1e-12);
  expectNear(out.mean,
             {4.76, 4.138333333333333, 3.694444444444444, 3.393333333333333, 3.177777777777777,
              3.0425, 2.9466666666666668},
             1e-12);
  expectNear(out.lo,
             {4.55, 3.9699999999999998, 3.54, 3.305, 3.1266666666666665, 2.9916666666666667, 2.92},
             1e-12);
  expectNear(out.hi, {4.93, 4.29, 3.86, 3.52, 3.2666666666666666, 3.1233333333333335, 3.0}, 1e-12);
}

TEST(SeedCollapse, StdDevBandIsMeanPlusMinusNumpySampleStd) {
  const NumpyCurves c;
  const CollapsedCurve out = collapseCurves(c.refs(), SeedBand::kStdDev, 7);
  const std::vector<double> sd = {0.19313207915827962, 0.16064972248134565, 0.16028909068490146,
                                  0.11250925887825108, 0.07726817178094993, 0.07077448535862191,
                                  0.0461880215351701};
  ASSERT_EQ(out.mean.size(), sd.size());
  for (size_t i = 0; i < sd.size(); ++i) {
    EXPECT_NEAR(out.hi[i] - out.mean[i], sd[i], 1e-12);
    EXPECT_NEAR(out.mean[i] - out.lo[i], sd[i], 1e-12);
  }
}

TEST(SeedCollapse, LogGridIsNumpyGeomspaceOverTheCommonRange) {
  const NumpyCurves c;
  const CollapsedCurve out = collapseCurves(c.refs(), SeedBand::kMinMax, 5, /*log_grid=*/true);
  expectNear(out.x, {5.0, 8.801117367933935, 15.491933384829666, 27.269264795219975, 48.0}, 1e-9);
  expectNear(out.mean,
             {4.76, 4.417899436885945, 3.9121237748596527, 3.3676911734926676, 2.9466666666666668},
             1e-9);
}

TEST(SeedCollapse, NonFiniteValuesAreSkippedAndDisjointRangesGiveNothing) {
  std::vector<double> x1 = {0, 1, 2, 3}, y1 = {4, NAN, 2, 1};
  std::vector<double> x2 = {0, 1, 2, 3}, y2 = {4, 3, 2, 1};
  const CollapsedCurve out = collapseCurves({{&x1, &y1}, {&x2, &y2}}, SeedBand::kMinMax, 4);
  ASSERT_EQ(out.mean.size(), 4u);
  EXPECT_DOUBLE_EQ(out.mean[1], 3.0);  // run 1 interpolates 4 -> 2 across its NaN
  std::vector<double> x3 = {10, 11}, y3 = {1, 1};
  EXPECT_TRUE(collapseCurves({{&x1, &y2}, {&x3, &y3}}, SeedBand::kMinMax, 4).x.empty());
  // A single run is its own mean, with a zero-width band.
  const CollapsedCurve one = collapseCurves({{&x2, &y2}}, SeedBand::kStdDev, 4);
  expectNear(one.mean, y2, 1e-15);
  expectNear(one.lo, y2, 1e-15);
  expectNear(one.hi, y2, 1e-15);
}

TEST(RunGrouping, TwoOptionsGiveTheProductOfTheirValues) {
  std::vector<OptionValues> runs;
  for (const char* arm : {"vanilla", "growth"})
    for (const char* lr : {"2", "0.5", "1"})
      for (int seed = 1; seed <= 3; ++seed)
        runs.push_back({{"arm", arm}, {"train.lr_mult", lr}, {"seed", std::to_string(seed)}});
  const auto groups = groupRuns(runs, {"arm", "train.lr_mult"});
  ASSERT_EQ(groups.size(), 2u * 3u);
  // Ordered by value: words alphabetically, numbers by value (0.5 < 1 < 2).
  const std::vector<std::string> labels = {"arm=growth, lr_mult=0.5", "arm=growth, lr_mult=1",
                                           "arm=growth, lr_mult=2",   "arm=vanilla, lr_mult=0.5",
                                           "arm=vanilla, lr_mult=1",  "arm=vanilla, lr_mult=2"};
  for (size_t g = 0; g < groups.size(); ++g) {
    EXPECT_EQ(groups[g].label, labels[g]);
    ASSERT_EQ(groups[g].members.size(), 3u) << groups[g].label;
    for (size_t m : groups[g].members) {
      EXPECT_EQ(runs[m].at("arm"), groups[g].values[0]);
      EXPECT_EQ(runs[m].at("train.lr_mult"), groups[g].values[1]);
    }
  }
  EXPECT_EQ(groupRuns(runs, {}).size(), 1u);
  EXPECT_EQ(groupRuns(runs, {"seed"}).size(), 3u);
  const auto varying = varyingOptions(runs);
  EXPECT_EQ(varying, (std::vector<std::string>{"arm", "seed", "train.lr_mult"}));
}

TEST(RunGrouping, NumbersOrderByValueBeforeWords) {
  EXPECT_TRUE(optionValueLess("2", "10"));
  EXPECT_FALSE(optionValueLess("10", "2"));
  EXPECT_TRUE(optionValueLess("1e-3", "0.01"));
  EXPECT_TRUE(optionValueLess("10", "abc"));
}

TEST(RunOptionValues, SchemaOptionsComeWithDefaultsAndPlainSpelling) {
  const OptionValues v = schemaOptionValues(R"({"train":{"lr_mult":0.5,"steps":2000}})");
  EXPECT_EQ(v.at("train.lr_mult"), "0.5");
  EXPECT_EQ(v.at("train.steps"), "2000");
  EXPECT_EQ(v.at("train.lr"), "0.003");  // the schema's default, as a plain number
  EXPECT_TRUE(optionNumber(v.at("train.lr")).has_value());
  EXPECT_TRUE(schemaOptionValues("not json").empty());
}

std::vector<MetricPoint> knownCurve() {
  // step, tokens, flops, value, wall
  return {{10, 100, 1e10, 5.0, 0},
          {20, 200, 2e10, 4.0, 0},
          {30, 300, 3e10, NAN, 0},
          {40, 400, 4e10, 3.0, 0},
          {50, 500, 5e10, 3.5, 0}};
}

TEST(ScatterSpec, SummaryStatisticsOfAKnownCurve) {
  ScatterSpec s;
  s.stat = SummaryStat::kFinal;
  EXPECT_DOUBLE_EQ(summarizeCurve(knownCurve(), s), 3.5);
  s.stat = SummaryStat::kMin;
  EXPECT_DOUBLE_EQ(summarizeCurve(knownCurve(), s), 3.0);
  s.stat = SummaryStat::kLastK;
  s.k = 3;  // the last three finite values: 4.0, 3.0, 3.5
  EXPECT_DOUBLE_EQ(summarizeCurve(knownCurve(), s), 3.5);
  s.stat = SummaryStat::kAtStep;
  s.at = 30;  // between step 20 (4.0) and 40 (3.0): the NaN row is skipped
  EXPECT_DOUBLE_EQ(summarizeCurve(knownCurve(), s), 3.5);
  s.at = 60;
  EXPECT_TRUE(std::isnan(summarizeCurve(knownCurve(), s)));
  s.stat = SummaryStat::kAtFlops;
  s.at = 4.5e10;
  EXPECT_DOUBLE_EQ(summarizeCurve(knownCurve(), s), 3.25);
}

TEST(ScatterSpec, JsonRoundTripsAndBadKeysAreNamed) {
  ScatterSpec s;
  s.ladder = "quick";
  s.metric = "train/loss";
  s.stat = SummaryStat::kLastK;
  s.k = 5;
  s.x = "train.lr_mult";
  s.group = "size";
  s.log_x = false;
  s.log_y = true;
  const ScatterSpec back = scatterSpecFromJson(scatterSpecToJson(s), "view 'v'");
  EXPECT_EQ(scatterSpecToJson(back), scatterSpecToJson(s));
  try {
    scatterSpecFromJson(nlohmann::json{{"colour", "red"}}, "view 'v'");
    FAIL() << "an unknown key was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("view 'v': unknown key \"colour\""), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(scatterSpecFromJson(nlohmann::json{{"k", "three"}}, "v"), UserError);
  EXPECT_THROW(parseSummaryStat("median"), UserError);
}

}  // namespace
}  // namespace deepladder
