// The sweep envelope: for each (arm, size) the fit keeps the point with the lowest mean final
// loss over its seeds, says which point that was, and flags a best point at an end of the values
// tried. Synthetic ladders (synthetic_data.h) with a made-up learning-rate response.
#include "fitting/sweep_envelope.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fitting/fit_diagnostics.h"
#include "fitting/frontier_fit.h"
#include "fitting/ladder_fit.h"
#include "synthetic_data.h"

namespace deepladder::fitting {
namespace {

RunPoint point(const std::string& arm, const std::string& size, double compute, double loss,
               const std::string& sweep, int64_t seed = 1) {
  RunPoint p;
  p.arm = arm;
  p.size = size;
  p.compute_flops = compute;
  p.val_loss = loss;
  p.sweep = sweep;
  p.seed = seed;
  return p;
}

// Each rung of a clean synthetic law run at lr_mult 0.25..2, the loss rising by
// 0.05 (ln(m / best))^2 away from the rung's best multiplier.
ResultsTable sweptLadder(const std::vector<double>& best_mult) {
  const ResultsTable clean = testing::syntheticLadder(testing::designDocArms(), 5, 0.0, 1);
  ResultsTable out;
  out.source = "swept";
  std::map<std::string, int> rung;
  for (const RunPoint& p : clean.points) {
    const int i = rung[p.arm]++;
    for (double m : {0.25, 0.5, 1.0, 2.0}) {
      const std::string value = m == 0.25 ? "0.25" : m == 0.5 ? "0.5" : m == 1 ? "1" : "2";
      const double penalty = 0.05 * std::pow(std::log(m / best_mult[size_t(i)]), 2);
      out.points.push_back(point(p.arm, "d" + std::to_string(i + 3), p.compute_flops,
                                 p.val_loss + penalty, "lr_mult" + value));
    }
  }
  return out;
}

TEST(SweepEnvelope, KeepsTheLowestMeanLossOverSeedsOfEveryRung) {
  ResultsTable t;
  t.source = "t";
  // lr_mult0.5: seeds 3.0 and 3.4 (mean 3.2); lr_mult1: 3.1 and 3.2 (mean 3.15, the best
  // although 0.5 has the single lowest run).
  t.points = {point("vanilla", "d3", 1e15, 3.0, "lr_mult0.5", 1),
              point("vanilla", "d3", 1e15, 3.4, "lr_mult0.5", 2),
              point("vanilla", "d3", 1e15, 3.1, "lr_mult1", 1),
              point("vanilla", "d3", 1e15, 3.2, "lr_mult1", 2),
              point("vanilla", "d3", 1e15, 3.3, "lr_mult2", 1),
              point("vanilla", "d3", 1e15, 3.3, "lr_mult2", 2)};
  const SweepEnvelope e = sweepEnvelope(t);
  ASSERT_EQ(e.rungs.size(), 1u);
  EXPECT_EQ(e.rungs[0].chosen, "lr_mult1");
  EXPECT_DOUBLE_EQ(e.rungs[0].mean_loss, 3.15);
  EXPECT_FALSE(e.rungs[0].at_edge);
  ASSERT_EQ(e.table.points.size(), 2u);  // both seeds of the chosen point
  for (const RunPoint& p : e.table.points) EXPECT_EQ(p.sweep, "lr_mult1");
  ASSERT_EQ(e.rungs[0].points.size(), 3u);
  EXPECT_EQ(e.rungs[0].points[0].seeds, 2);
}

TEST(SweepEnvelope, FlagsABestPointAtEitherEndOfTheValuesTried) {
  ResultsTable t;
  t.source = "t";
  t.points = {point("vanilla", "d3", 1e15, 3.0, "lr_mult0.25"),
              point("vanilla", "d3", 1e15, 3.1, "lr_mult0.5"),
              point("vanilla", "d4", 2e15, 2.9, "lr_mult0.25"),
              point("vanilla", "d4", 2e15, 2.8, "lr_mult0.5"),
              point("vanilla", "d4", 2e15, 2.7, "lr_mult1e-05")};
  const SweepEnvelope e = sweepEnvelope(t);
  ASSERT_EQ(e.rungs.size(), 2u);
  EXPECT_TRUE(e.rungs[0].at_edge);
  EXPECT_EQ(e.rungs[0].edge, "lr_mult 0.25, the smallest tried");
  EXPECT_TRUE(e.rungs[1].at_edge);
  EXPECT_EQ(e.rungs[1].chosen, "lr_mult1e-05");
  EXPECT_EQ(e.rungs[1].edge, "lr_mult 1e-05, the smallest tried");
  const auto warnings = sweepEdgeDiagnostics(e.rungs);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0].kind, "sweep_edge");
  EXPECT_NE(warnings[0].message.find("best at edge: extend the sweep"), std::string::npos);
}

// A neighbour a halving stop ended early was tried and judged losing: the best point beside it is
// bracketed on that side, and the stopped point (no final loss) is never chosen or fitted.
TEST(SweepEnvelope, AStoppedNeighbourBracketsTheBest) {
  ResultsTable t;
  t.source = "t";
  t.points = {point("vanilla", "d5", 1e15, 1.65, "lr_mult1"),
              point("vanilla", "d5", 1e15, 1.71, "lr_mult2")};
  EXPECT_TRUE(sweepEnvelope(t).rungs.at(0).at_edge);  // without the stopped point: an edge
  t.stopped = {point("vanilla", "d5", 1e15, std::nan(""), "lr_mult0.5")};
  const SweepEnvelope e = sweepEnvelope(t);
  ASSERT_EQ(e.rungs.size(), 1u);
  EXPECT_EQ(e.rungs[0].chosen, "lr_mult1");
  EXPECT_FALSE(e.rungs[0].at_edge) << e.rungs[0].edge;
  EXPECT_TRUE(sweepEdgeDiagnostics(e.rungs).empty());
  ASSERT_EQ(e.table.points.size(), 1u);
  EXPECT_EQ(e.table.points[0].sweep, "lr_mult1");
  // The best at the far end from the stopped point is still at an edge.
  t.points[1].val_loss = 1.60;
  EXPECT_TRUE(sweepEnvelope(t).rungs.at(0).at_edge);
}

TEST(SweepEnvelope, PointsWithoutASweepPassThrough) {
  const ResultsTable clean = testing::syntheticLadder(testing::designDocArms(), 4, 0.0, 1);
  const SweepEnvelope e = sweepEnvelope(clean);
  EXPECT_TRUE(e.rungs.empty());
  EXPECT_EQ(e.table.points.size(), clean.points.size());
}

TEST(SweepEnvelope, EveryFitSeesTheEnvelopeAndSaysWhichPointEachRungUsed) {
  // Best at 0.5 at every rung (bracketed, no penalty there): the envelope is the clean law.
  const ResultsTable swept = sweptLadder({0.5, 0.5, 0.5, 0.5, 0.5});
  FrontierOptions o = defaultFrontierOptions();
  o.bootstrap = 0;
  const FrontierResult direct = fitFrontier(swept, o);
  LadderFitter fitter(nullptr, "swept");
  const FrontierResult ladder = fitter.fit(swept, o, /*lenient=*/false);
  const FrontierResult clean =
      fitFrontier(testing::syntheticLadder(testing::designDocArms(), 5, 0.0, 1), o);
  for (const FrontierResult* r : {&direct, &ladder}) {
    ASSERT_EQ(r->sweep.size(), 10u);
    for (const SweepRungChoice& c : r->sweep) {
      EXPECT_EQ(c.chosen, "lr_mult0.5");
      EXPECT_FALSE(c.at_edge);
    }
    EXPECT_NEAR(r->arms[0].gamma, clean.arms[0].gamma, 1e-6);
    EXPECT_NEAR(r->arms[1].gamma, clean.arms[1].gamma, 1e-6);
  }
  const std::string text = diagnosticsMarkdown(ladder);
  EXPECT_NE(text.find("| vanilla | d3 | lr_mult0.5 |"), std::string::npos) << text;
}

TEST(SweepEnvelope, AnEdgeBestIsADiagnosticOfTheFit) {
  FrontierOptions o = defaultFrontierOptions();
  o.bootstrap = 0;
  const FrontierResult r = fitFrontier(sweptLadder({0.5, 0.5, 0.5, 0.5, 0.1}), o);
  int edges = 0;
  for (const FitDiagnostic& w : r.diagnostics.warnings) edges += w.kind == "sweep_edge";
  EXPECT_EQ(edges, 2);  // d7 of both arms: best at 0.25, the smallest tried
}

}  // namespace
}  // namespace deepladder::fitting
