// The law drawn over a scatter of runs (fitting/scatter_law.h): for final loss against FLOPs it is
// fitting's own frontier fit of the same points (checked against fitFrontier called directly);
// otherwise the power law y = a x^b of fitLogExcessLine with E = 0, which recovers a and b from
// points exactly on a power law.
#include "fitting/scatter_law.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "fitting/frontier_fit.h"
#include "synthetic_data.h"

namespace deepladder::fitting {
namespace {

std::vector<ScatterPoint> pointsOf(const ResultsTable& table) {
  std::vector<ScatterPoint> points;
  for (const auto& p : table.points) points.push_back({p.compute_flops, p.val_loss, p.arm, 0, ""});
  return points;
}

TEST(ScatterLaw, FinalLossAgainstFlopsIsFittingsOwnFrontierFit) {
  const ResultsTable table = testing::syntheticLadder(
      {{"vanilla", 1.8, 1.2, 0.111}, {"growth", 1.8, 1.15, 0.117}}, 6, 0.01, 7);
  ScatterSpec spec;
  spec.x = "flops";
  spec.metric = "val/loss";
  spec.stat = SummaryStat::kFinal;
  ASSERT_TRUE(frontierLawApplies(spec));
  FrontierOptions options = defaultFrontierOptions();
  const ScatterFit fit = fitScatterLaws(pointsOf(table), {"growth", "vanilla"}, spec, options);
  options.bootstrap = 0;
  const FrontierResult direct = fitFrontier(table, options);
  ASSERT_EQ(fit.laws.size(), 2u);
  for (const ScatterLaw& law : fit.laws) {
    ASSERT_TRUE(law.fitted()) << law.group << ": " << law.no_fit;
    EXPECT_EQ(law.form, ScatterLawForm::kFrontier);
    const auto arm = std::find_if(direct.arms.begin(), direct.arms.end(),
                                  [&](const ArmFit& a) { return a.arm == law.group; });
    ASSERT_NE(arm, direct.arms.end());
    EXPECT_DOUBLE_EQ(law.E, arm->E) << law.group;
    EXPECT_DOUBLE_EQ(law.A, arm->A) << law.group;
    EXPECT_DOUBLE_EQ(law.gamma, arm->gamma) << law.group;
    EXPECT_DOUBLE_EQ(law.predict(1e21),
                     arm->E + arm->A * std::pow(1e21 / direct.c_ref, -arm->gamma));
  }
  EXPECT_NE(fit.note.find("E shared with vanilla"), std::string::npos) << fit.note;
}

TEST(ScatterLaw, OtherAxesGetThePowerLawOfTheLogLine) {
  // Points exactly on y = 40 x^-0.2 for one group, y = 30 x^-0.15 for another.
  std::vector<ScatterPoint> points;
  for (double x : {1e5, 3e5, 1e6, 3e6, 1e7}) {
    points.push_back({x, 40 * std::pow(x, -0.2), "a", 0, ""});
    points.push_back({x, 30 * std::pow(x, -0.15), "b", 0, ""});
  }
  ScatterSpec spec;
  spec.x = "params";
  ASSERT_FALSE(frontierLawApplies(spec));
  const ScatterFit fit = fitScatterLaws(points, {"a", "b"}, spec);
  ASSERT_EQ(fit.laws.size(), 2u);
  EXPECT_EQ(fit.laws[0].form, ScatterLawForm::kPowerLaw);
  EXPECT_NEAR(fit.laws[0].a, 40, 1e-9);
  EXPECT_NEAR(fit.laws[0].b, -0.2, 1e-12);
  EXPECT_NEAR(fit.laws[1].a, 30, 1e-9);
  EXPECT_NEAR(fit.laws[1].b, -0.15, 1e-12);
  EXPECT_NEAR(fit.laws[1].predict(2e6), 30 * std::pow(2e6, -0.15), 1e-12);
}

TEST(ScatterLaw, AGroupThatCannotBeFittedSaysWhy) {
  const std::vector<ScatterPoint> points = {
      {1e6, 3.0, "one", 0, ""}, {1e6, -1.0, "neg", 0, ""}, {2e6, 2.0, "neg", 0, ""}};
  ScatterSpec spec;
  spec.x = "params";
  const ScatterFit fit = fitScatterLaws(points, {"one", "neg"}, spec);
  ASSERT_EQ(fit.laws.size(), 2u);
  EXPECT_EQ(fit.laws[0].no_fit, "fewer than 2 points");
  EXPECT_EQ(fit.laws[1].no_fit, "a power law needs positive x and y");
  EXPECT_TRUE(std::isnan(fit.laws[1].predict(1e6)));
}

TEST(ScatterLaw, AFrontierFitThatFailsFallsBackToPowerLaws) {
  // Two rungs per arm: too few for the E-free baseline fit.
  std::vector<ScatterPoint> points = {{1e18, 3.0, "vanilla", 0, ""}, {1e19, 2.8, "vanilla", 0, ""}};
  ScatterSpec spec;
  spec.x = "flops";
  const ScatterFit fit = fitScatterLaws(points, {"vanilla"}, spec);
  ASSERT_EQ(fit.laws.size(), 1u);
  EXPECT_EQ(fit.laws[0].form, ScatterLawForm::kPowerLaw);
  EXPECT_TRUE(fit.laws[0].fitted());
  EXPECT_NE(fit.note.find("frontier fit failed"), std::string::npos) << fit.note;
}

}  // namespace
}  // namespace deepladder::fitting
