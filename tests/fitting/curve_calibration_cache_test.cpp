// The calibration cache of curve predictions (fitting/curve_prediction.h): predictions with it
// are those without it, a second call with the same finished runs reuses every calibration, and
// a run that finishes makes its arm's calibrations be computed again.
#include <gtest/gtest.h>

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
