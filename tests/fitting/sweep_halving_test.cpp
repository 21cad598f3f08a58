// Sweep halving (fitting/sweep_halving.h): a property test over random rungs (its invariants:
// never the rung's best, never its last live point, every stop beyond both intervals), and the
// checkpoint bookkeeping.
#include "fitting/sweep_halving.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace deepladder::fitting;

TEST(SweepHalving, NeverStopsTheRungsBestOrItsLastPointOverRandomSweeps) {
  std::mt19937 rng(20260);
  std::uniform_int_distribution<int> points(1, 6), state(0, 4), coin(0, 1);
  std::uniform_real_distribution<double> loss(1.0, 3.0), width(0.0, 0.4);
  int stops = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<HalvingPoint> rung(size_t(points(rng)));
    for (size_t i = 0; i < rung.size(); ++i) {
      HalvingPoint& p = rung[i];
      p.run_id = int64_t(i + 1);
      p.label = "lr_mult" + std::to_string(i);
      p.state = static_cast<HalvingState>(state(rng));
      if (p.state == HalvingState::kFinished || p.state == HalvingState::kRunning || coin(rng)) {
        p.loss = loss(rng);
        const double w = p.state == HalvingState::kFinished ? 0.0 : width(rng);
        p.lo = *p.loss - w;
        p.hi = *p.loss + w;
      }
      p.calibrated = coin(rng);
      if (p.state == HalvingState::kRunning && coin(rng)) p.due = 0.25 * (1 + state(rng) % 3);
    }
    const std::vector<HalvingPoint> before = rung;
    // The rung's best: the lowest loss of a finished point or a calibrated running prediction.
    int best = -1;
    for (size_t i = 0; i < before.size(); ++i) {
      const HalvingPoint& p = before[i];
      const bool counts = p.loss && (p.state == HalvingState::kFinished ||
                                     (p.state == HalvingState::kRunning && p.calibrated));
      if (counts && (best < 0 || *p.loss < *before[size_t(best)].loss)) best = int(i);
    }
    const std::vector<HalvingDecision> decisions = halveRung(rung);
    stops += int(decisions.size());
    int alive = 0;
    for (const HalvingPoint& p : rung)
      alive += p.state != HalvingState::kStopped && p.state != HalvingState::kFailed;
    int alive_before = 0;
    for (const HalvingPoint& p : before)
      alive_before += p.state != HalvingState::kStopped && p.state != HalvingState::kFailed;
    if (alive_before > 0) {
      EXPECT_GE(alive, 1) << "trial " << trial;
    }
    if (best >= 0) {
      EXPECT_NE(rung[size_t(best)].state, HalvingState::kStopped) << "trial " << trial;
    }
    for (const HalvingDecision& d : decisions) {
      EXPECT_GT(d.lo, d.best_hi) << "trial " << trial;
      const HalvingPoint& p = before[size_t(d.run_id - 1)];
      EXPECT_EQ(p.state, HalvingState::kRunning);
      EXPECT_TRUE(p.calibrated);
      EXPECT_FALSE(std::isnan(p.due));
    }
  }
  EXPECT_GT(stops, 1000);  // the property was exercised, not vacuous
}

namespace {

// A rung whose centre finished at 1.50 and whose x0.5 point, due at 1/4, is predicted at 1.70
// [1.65, 1.75], a clear loser; its x2 point, also due, is predicted at `x2` [`x2_lo`, `x2_hi`].
std::vector<HalvingPoint> rungWithAClearLoser(double x2, double x2_lo, double x2_hi) {
  std::vector<HalvingPoint> rung(3);
  rung[0] = {1, "lr_mult1", HalvingState::kFinished, 1.50, 1.50, 1.50, false};
  rung[1] = {2, "lr_mult0.5", HalvingState::kRunning, 1.70, 1.65, 1.75, true, 0.25};
  rung[2] = {3, "lr_mult2", HalvingState::kRunning, x2, x2_lo, x2_hi, true, 0.25};
  return rung;
}

}  // namespace

TEST(SweepHalving, StopsAClearLoserAgainstAMeasuredBestAndKeepsAnOverlappingPoint) {
  std::vector<HalvingPoint> rung = rungWithAClearLoser(1.52, 1.45, 1.59);
  const std::vector<HalvingDecision> d = halveRung(rung);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].label, "lr_mult0.5");
  EXPECT_EQ(d[0].best_label, "lr_mult1");
  EXPECT_TRUE(d[0].best_measured);
  EXPECT_EQ(rung[1].state, HalvingState::kStopped);
  EXPECT_EQ(rung[2].state, HalvingState::kRunning);
  EXPECT_NE(d[0].reason.find("beyond both intervals"), std::string::npos);
}

TEST(SweepHalving, ALowButUnsurePredictionDoesNotShieldAClearLoser) {
  // lr_mult2 is predicted lowest but its interval is wide (a run judged far from its peers);
  // lr_mult1's measured loss still shows lr_mult0.5 losing beyond both intervals.
  std::vector<HalvingPoint> rung = rungWithAClearLoser(1.05, 0.60, 2.00);
  const std::vector<HalvingDecision> d = halveRung(rung);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].label, "lr_mult0.5");
  EXPECT_EQ(d[0].best_label, "lr_mult1");
  EXPECT_DOUBLE_EQ(d[0].best_hi, 1.50);
  EXPECT_EQ(rung[2].state, HalvingState::kRunning);  // the unsure point itself is not judged lost
}

TEST(SweepHalving, DueFractionIsTheLargestPassedSinceTheLastJudgement) {
  const std::vector<double> f = defaultHalvingFractions();
  EXPECT_TRUE(std::isnan(dueHalvingFraction(f, 0.0, 0.2)));
  EXPECT_DOUBLE_EQ(dueHalvingFraction(f, 0.0, 0.3), 0.25);
  EXPECT_DOUBLE_EQ(dueHalvingFraction(f, 0.0, 0.8), 0.75);
  EXPECT_TRUE(std::isnan(dueHalvingFraction(f, 0.5, 0.6)));
  EXPECT_DOUBLE_EQ(dueHalvingFraction(f, 0.5, 0.76), 0.75);
}
