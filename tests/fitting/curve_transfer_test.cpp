// The peers' curve ratios (fitting/curve_transfer.h) and their place among the curve predictions
// (fitting/curve_prediction.h): exact on curves of one shape, no wild extrapolation from a few
// peers, and chosen over the law only where the arm's own backtests say it predicts better.
#include "fitting/curve_transfer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "fitting/curve_prediction.h"
#include "shape_curves.h"

using namespace deepladder::fitting;
using namespace deepladder::fitting::testing;

namespace {

// Ten finished runs of one arm (ids 1-10): five sizes at two peak rates, all of one shape, so the
// gain from any fraction is the same for every run.
std::vector<RunCurve> tenRunsOfOneShape(std::mt19937& rng) {
  std::vector<RunCurve> runs;
  int64_t id = 1;
  for (int64_t total : {100, 200, 300, 450, 600})
    for (double peak : {0.01, 0.02})
      runs.push_back(shapeCurve(id++, "arm", total, peak, 3.0 - 0.002 * double(total), rng));
  return runs;
}

}  // namespace

TEST(CurveTransfer, LevelIsTheMeanTrainLossOfTheLastTenthBeforeTheFraction) {
  RunCurve run;
  run.rates.assign(100, 1.0);
  for (int64_t u = 0; u < 100; ++u) run.points.push_back({u, double(u), 1.0, false});
  run.points.push_back({50, 1000.0, 32.0, true});  // validation points do not count
  // Updates 41..50: mean 45.5.
  ASSERT_TRUE(curveLevel(run, 0.5));
  EXPECT_DOUBLE_EQ(*curveLevel(run, 0.5), 45.5);
  // Before any train point: none.
  RunCurve empty = run;
  empty.points.clear();
  EXPECT_FALSE(curveLevel(empty, 0.5));
}

TEST(CurveTransfer, CurvesOfOneShapeArePredictedFromTheirPeersGains) {
  std::mt19937 rng(3);
  const std::vector<RunCurve> finished = tenRunsOfOneShape(rng);
  std::vector<const RunCurve*> peers;
  for (const RunCurve& r : finished) peers.push_back(&r);
  const RunCurve full = shapeCurve(11, "arm", 400, 0.015, 2.2, rng);
  for (double f : {0.25, 0.5, 0.75}) {
    const std::optional<double> p = transferPrediction(truncateCurve(full, f), peers);
    ASSERT_TRUE(p) << f;
    EXPECT_NEAR(*p, 2.2, 0.002 * 2.2) << "cut at " << f;
  }
  // One peer is not enough.
  EXPECT_FALSE(transferPrediction(truncateCurve(full, 0.5), {peers[0]}));
}

TEST(CurveTransfer, AFewPeersCannotExtrapolateARunFarBeyondTheirGains) {
  std::mt19937 rng(5);
  // Four peers whose gains happen to trend steeply with the peak rate; the target's peak rate is
  // 100 times theirs. The predicted gain stays within the peers' range widened by half of it.
  std::vector<RunCurve> finished;
  int64_t id = 1;
  for (const auto& [total, peak, final_loss] : std::vector<std::tuple<int64_t, double, double>>{
           {100, 0.010, 2.0}, {150, 0.012, 1.9}, {200, 0.011, 1.8}, {250, 0.013, 1.7}}) {
    RunCurve r = shapeCurve(id++, "arm", total, peak, final_loss, rng);
    *r.final_loss *= 1.0 - 3.0 * (peak - 0.010);  // a gain that grows with the rate
    finished.push_back(r);
  }
  std::vector<const RunCurve*> peers;
  double lowest = HUGE_VAL, highest = -HUGE_VAL;
  for (const RunCurve& r : finished) {
    peers.push_back(&r);
    const double y = std::log(*r.final_loss / *curveLevel(r, 0.5));
    lowest = std::min(lowest, y);
    highest = std::max(highest, y);
  }
  const RunCurve target = truncateCurve(shapeCurve(id, "arm", 300, 1.0, 1.6, rng), 0.5);
  const std::optional<double> p = transferPrediction(target, peers);
  ASSERT_TRUE(p);
  const double gain = std::log(*p / *curveLevel(target, 0.5));
  const double margin = 0.5 * (highest - lowest);
  EXPECT_GE(gain, lowest - margin - 1e-12);
  EXPECT_LE(gain, highest + margin + 1e-12);
}

TEST(CurveTransfer, PeersArePreferredOnlyWhereTheirBacktestsErrLess) {
  std::mt19937 rng(7);
  const std::vector<RunCurve> runs = tenRunsOfOneShape(rng);
  const std::vector<CurveBacktest> backtests = backtestCurves(runs, {0.5}, CurveLawOptions{});
  ASSERT_EQ(backtests.size(), runs.size());
  int peers = 0;
  double worst = 0;
  for (const CurveBacktest& b : backtests) {
    ASSERT_TRUE(b.prediction.loss) << b.prediction.reason;
    EXPECT_TRUE(b.prediction.calibrated);
    peers += b.prediction.method == "peers";
    worst = std::max(worst, std::abs(b.relError()));
  }
  // The shape is the law's approximation only: the peers' ratios win on these curves...
  EXPECT_GE(peers, 8) << "of " << backtests.size();
  EXPECT_LT(worst, 0.01);
  // ... and without peers (each run alone in its group) there is nothing to choose: the law.
  std::vector<RunCurve> alone = runs;
  for (RunCurve& r : alone) r.group = r.name;
  for (const CurvePrediction& p : predictFinalLosses({truncateCurve(alone[0], 0.5)}, {}))
    EXPECT_EQ(p.method, "law");
}
