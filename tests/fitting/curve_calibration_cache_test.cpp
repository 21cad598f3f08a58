// The calibration cache of curve predictions (fitting/curve_prediction.h): predictions with it
// are those without it, a second call with the same finished runs reuses every calibration, and
// a run that finishes makes its arm's calibrations be computed again (another arm's, only the
// pooled peers' backtests).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "fitting/curve_prediction.h"
#include "shape_curves.h"

using namespace deepladder::fitting;
using namespace deepladder::fitting::testing;

namespace {

void expectSamePredictions(const std::vector<CurvePrediction>& a,
                           const std::vector<CurvePrediction>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].run_id, b[i].run_id);
    ASSERT_EQ(a[i].loss.has_value(), b[i].loss.has_value()) << a[i].reason << " / " << b[i].reason;
    if (!a[i].loss) continue;
    EXPECT_EQ(*a[i].loss, *b[i].loss);
    EXPECT_EQ(a[i].lo, b[i].lo);
    EXPECT_EQ(a[i].hi, b[i].hi);
    EXPECT_EQ(a[i].method, b[i].method);
    EXPECT_EQ(a[i].backtests, b[i].backtests);
  }
}

}  // namespace

TEST(CurveCalibrationCache, ReusesCalibrationsUntilARunFinishes) {
  std::mt19937 rng(11);
  std::vector<RunCurve> runs;
  int64_t id = 1;
  for (int64_t total : {100, 150, 200, 300, 400})
    runs.push_back(shapeCurve(id++, "arm", total, 0.02, 3.0 - 0.002 * double(total), rng));
  const RunCurve half = shapeCurve(id++, "arm", 500, 0.02, 2.0, rng);
  const RunCurve third = shapeCurve(id++, "arm", 250, 0.01, 2.6, rng);
  runs.push_back(truncateCurve(half, 0.5));
  runs.push_back(truncateCurve(third, 0.3));
  const CurveLawOptions options;

  CurveCalibrationCache cache;
  const auto first = predictFinalLosses(runs, options, true, &cache);
  EXPECT_EQ(cache.misses(), 2);  // two running runs at two fractions
  EXPECT_EQ(cache.hits(), 0);
  for (const CurvePrediction& p : first) EXPECT_TRUE(p.calibrated) << p.name;
  expectSamePredictions(first, predictFinalLosses(runs, options));

  const auto again = predictFinalLosses(runs, options, true, &cache);
  EXPECT_EQ(cache.misses(), 2);
  EXPECT_EQ(cache.hits(), 2);
  expectSamePredictions(first, again);

  // The run at a third finishes: both calibrations now rest on six finished runs.
  runs.back() = third;
  const auto after = predictFinalLosses(runs, options, true, &cache);
  EXPECT_EQ(cache.misses(), 3);  // one running run left, its calibration computed anew
  ASSERT_EQ(after.size(), 1u);
  // Six finished runs, five backtests: the run at half the others' rate is not predicted from
  // their gains in its own backtest (its leverage among them is beyond reach).
  EXPECT_EQ(after[0].method.rfind("peers", 0), 0u) << after[0].method;
  EXPECT_EQ(after[0].backtests, 5);
  expectSamePredictions(after, predictFinalLosses(runs, options));
}

TEST(CurveCalibrationCache, AnotherArmsFinishedRunRefreshesOnlyThePooledBacktests) {
  // Two arms of five finished runs each, one running run in each. When arm b's running run
  // finishes, arm a's calibration is reused (its law's backtests rest on arm a's runs alone), but
  // its pooled peers' backtests, which read every arm's runs, are redone: the predictions are
  // those computed without the cache.
  // Every run's final loss scattered by 1%, so that the backtests' errors depend on which runs
  // have finished. (With this seed arm a's running run is predicted by the pooled peers, whose
  // stale backtests would give it another interval: without the refresh this test fails.)
  std::mt19937 rng(10);
  std::normal_distribution<double> scatter(0.0, 0.01);
  const auto scattered = [&](RunCurve r) {
    *r.final_loss *= std::exp(scatter(rng));
    r.points.back().loss = *r.final_loss;
    return r;
  };
  std::vector<RunCurve> runs;
  int64_t id = 1;
  for (const char* arm : {"a", "b"})
    for (int64_t total : {100, 150, 200, 300, 400})
      runs.push_back(
          scattered(shapeCurve(id++, arm, total, 0.02, 3.0 - 0.002 * double(total), rng)));
  const RunCurve running_a = scattered(shapeCurve(id++, "a", 250, 0.02, 2.5, rng));
  const RunCurve running_b = scattered(shapeCurve(id++, "b", 350, 0.02, 2.3, rng));
  runs.push_back(truncateCurve(running_a, 0.5));
  runs.push_back(truncateCurve(running_b, 0.5));
  const CurveLawOptions options;

  CurveCalibrationCache cache;
  const auto first = predictFinalLosses(runs, options, true, &cache);
  EXPECT_EQ(cache.misses(), 2);  // one calibration per arm
  expectSamePredictions(first, predictFinalLosses(runs, options));

  runs.back() = running_b;  // arm b's run finishes
  const auto after = predictFinalLosses(runs, options, true, &cache);
  EXPECT_EQ(cache.misses(), 2);
  EXPECT_EQ(cache.hits(), 1);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].name, running_a.name);
  EXPECT_EQ(after[0].method, "peers-pooled");
  expectSamePredictions(after, predictFinalLosses(runs, options));
}
