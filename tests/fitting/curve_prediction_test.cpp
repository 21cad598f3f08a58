// Curve predictions (fitting/curve_prediction.h) on synthetic curves drawn from the law itself
// (fitting/loss_curve_law.h) with Gaussian batch noise: the schedules are the quick ladder's
// (WSD, 3 warmup steps, a decay over the final 60%, growth at 0.6 with a 3-step re-warm, via
// core/learning_rate_schedule.h); the parameters are round numbers of the size the quick ladder's
// curves have (final losses 1.2-2.7 nats).
#include "fitting/curve_prediction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <tuple>

#include "core/learning_rate_schedule.h"

using namespace deepladder;
using namespace deepladder::fitting;

namespace {

struct Synthetic {
  CurveGroupParameters group;
  CurveLawOptions options = defaultCurveLawOptions();
};

RunConfig wsdRun(int64_t steps, double lr_mult, bool grows) {
  RunConfig c;
  c.train.schedule = Schedule::wsd;
  c.train.lr = 0.02;
  c.train.lr_mult = lr_mult;
  c.train.min_lr_ratio = 0.0;
  c.train.steps = steps;
  c.train.warmup_steps = 3;
  c.train.decay_fraction = 0.6;
  if (grows) {
    c.model.n_layer = 2;
    c.model.grow_layers = 4;
    c.model.grow_fraction = 0.6;
    c.model.rewarm_steps = 3;
  }
  return c;
}

// A run's curve: train loss every step (noise sigma), val loss every 50 steps and at the end
// (32 batches: sigma / sqrt(32)).
RunCurve drawCurve(int64_t id, const Synthetic& s, const RunConfig& config, double l0, double a,
                   std::mt19937& rng, double sigma = 0.03) {
  RunCurve run;
  run.run_id = id;
  run.name = "run" + std::to_string(id);
  run.group = "arm";
  run.rates = learningRates(config);
  const int64_t total = config.train.steps;
  run.crossover = config.model.grow_layers > config.model.n_layer
                      ? int64_t(config.model.grow_fraction * double(total))
                      : -1;
  const ScheduleAreas areas = scheduleAreas(run.rates, s.options);
  const CurveRunParameters own{l0, a};
  std::normal_distribution<double> noise(0.0, sigma);
  for (int64_t u = 1; u <= total; ++u) {
    run.points.push_back(
        {u - 1, curveLawLoss(s.group, own, areas, run.crossover, u - 1, false) + noise(rng), 1.0,
         false});
    if (u % 50 == 0 || u == total) {
      const double val =
          curveLawLoss(s.group, own, areas, run.crossover, u, true) + noise(rng) / std::sqrt(32.0);
      run.points.push_back({u, val, 32.0, true});
      if (u == total) run.final_loss = val;
    }
  }
  return run;
}

Synthetic plainArm() {
  Synthetic s;
  s.group.alpha = 0.6;
  s.group.c = 0.08;
  s.group.delta = 0.02;
  return s;
}

}  // namespace

TEST(CurvePrediction, SyntheticCurveCutAtAQuarterPredictsItsEndWithinTheInterval) {
  const Synthetic s = plainArm();
  std::mt19937 rng(7);
  std::vector<RunCurve> runs;
  // Finished runs of the arm: four sizes (steps, L0, A) at two learning rates.
  const std::vector<std::tuple<int64_t, double, double>> sizes = {
      {200, 2.0, 1.6}, {300, 1.8, 1.5}, {400, 1.6, 1.5}, {500, 1.45, 1.4}};
  int64_t id = 1;
  for (const auto& [steps, l0, a] : sizes)
    for (double mult : {0.5, 1.0})
      runs.push_back(drawCurve(id++, s, wsdRun(steps, mult, false), l0, a, rng));
  const RunCurve full = drawCurve(id, s, wsdRun(600, 1.0, false), 1.35, 1.4, rng);
  runs.push_back(truncateCurve(full, 0.25));
  const std::vector<CurvePrediction> p = predictFinalLosses(runs, s.options);
  ASSERT_EQ(p.size(), 1u);
  ASSERT_TRUE(p[0].loss) << p[0].reason;
  EXPECT_TRUE(p[0].calibrated);
  EXPECT_NEAR(p[0].fraction, 0.25, 0.01);
  EXPECT_LE(p[0].lo, *full.final_loss);
  EXPECT_GE(p[0].hi, *full.final_loss);
  EXPECT_NEAR(*p[0].loss, *full.final_loss, 0.02 * *full.final_loss);
}

TEST(CurvePrediction, GrownRunPredictedFromHalfBeforeItsGrowthAtSixTenths) {
  Synthetic s = plainArm();
  s.group.g = 1.0;  // from the crossover on the reducible loss falls twice as fast
  std::mt19937 rng(11);
  std::vector<RunCurve> runs;
  const std::vector<std::tuple<int64_t, double, double>> sizes = {
      {200, 2.0, 1.6}, {300, 1.8, 1.5}, {400, 1.6, 1.5}, {500, 1.45, 1.4}};
  int64_t id = 1;
  for (const auto& [steps, l0, a] : sizes)
    for (double mult : {0.5, 1.0})
      runs.push_back(drawCurve(id++, s, wsdRun(steps, mult, true), l0, a, rng));
  const RunCurve full = drawCurve(id, s, wsdRun(600, 1.0, true), 1.35, 1.4, rng);
  // Without growth the same run would end this much higher: the jump the law must carry.
  Synthetic flat = s;
  flat.group.g = 0;
  const double ungrown =
      curveLawLoss(flat.group, {1.35, 1.4}, scheduleAreas(full.rates, s.options), -1, 600, true);
  ASSERT_GT(ungrown - *full.final_loss, 0.03);
  runs.push_back(truncateCurve(full, 0.5));
  const std::vector<CurvePrediction> p = predictFinalLosses(runs, s.options);
  ASSERT_EQ(p.size(), 1u);
  ASSERT_TRUE(p[0].loss) << p[0].reason;
  EXPECT_LE(p[0].lo, *full.final_loss);
  EXPECT_GE(p[0].hi, *full.final_loss);
  EXPECT_LT(p[0].hi, ungrown);  // the interval excludes the curve without growth
}

TEST(CurvePrediction, NoPredictionBeforeAnyRunOfTheArmWasSeenPastItsGrowth) {
  Synthetic s = plainArm();
  s.group.g = 0.5;
  std::mt19937 rng(3);
  const RunCurve full = drawCurve(1, s, wsdRun(400, 1.0, true), 1.6, 1.5, rng);
  const std::vector<CurvePrediction> p = predictFinalLosses({truncateCurve(full, 0.5)}, s.options);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_FALSE(p[0].loss);
  EXPECT_NE(p[0].reason.find("growth"), std::string::npos);
}

TEST(CurvePrediction, BacktestsCoverTheMeasuredEndsOfSyntheticRuns) {
  const Synthetic s = plainArm();
  std::mt19937 rng(5);
  std::vector<RunCurve> runs;
  int64_t id = 1;
  for (int64_t steps : {200, 260, 320, 380, 440, 500})
    for (double mult : {0.5, 1.0})
      runs.push_back(drawCurve(id++, s, wsdRun(steps, mult, false), 2.4 - steps / 500.0, 1.5, rng));
  const std::vector<CurveBacktest> b = backtestCurves(runs, {0.5}, s.options);
  ASSERT_EQ(b.size(), runs.size());
  int covered = 0;
  for (const CurveBacktest& t : b) {
    ASSERT_TRUE(t.prediction.loss) << t.name << ": " << t.prediction.reason;
    EXPECT_TRUE(t.prediction.calibrated);
    covered += t.covered();
    EXPECT_LT(std::abs(t.relError()), 0.02) << t.name;
  }
  EXPECT_GE(covered, 10);  // of 12: a 95% interval may miss one
}

// Real curves start with a transient the law does not describe (the quick ladder's runs fall
// steeply through their first fifth; fitted from 4% of the run, `predict --backtest` on its 45
// runs erred 2.98% at half a run, from 20% 1.98%). Here every curve starts slow: an extra loss of
// 0.4 nats that fades linearly to 0 at 15% of its run (a momentum ramp's slow start). Fitting from
// the first fifth on, the prediction at half
// a run lands within 1% of the end; fitted from 4% of the run, it is pulled well off.
TEST(CurvePrediction, TheEarlyTransientIsNotFitted) {
  const Synthetic s = plainArm();
  const auto withSlowStart = [](RunCurve run) {
    const double total = double(run.rates.size());
    for (CurveObservation& o : run.points)
      o.loss += 0.4 * std::max(0.0, 1.0 - double(o.updates) / (0.15 * total));
    return run;
  };
  CurveLawOptions from_4_percent = s.options;
  from_4_percent.skip_fraction = 0.04;
  // Mean relative error at half a run over six draws, with the default options and from 4%.
  double sum_default = 0, sum_early = 0;
  const int draws = 6;
  for (int seed = 1; seed <= draws; ++seed) {
    std::mt19937 rng(seed);
    std::vector<RunCurve> runs;
    const std::vector<std::tuple<int64_t, double, double>> sizes = {
        {200, 2.0, 1.6}, {300, 1.8, 1.5}, {400, 1.6, 1.5}, {500, 1.45, 1.4}};
    int64_t id = 1;
    for (const auto& [steps, l0, a] : sizes)
      runs.push_back(withSlowStart(drawCurve(id++, s, wsdRun(steps, 1.0, false), l0, a, rng)));
    const RunCurve full = withSlowStart(drawCurve(id, s, wsdRun(600, 1.0, false), 1.35, 1.4, rng));
    runs.push_back(truncateCurve(full, 0.5));
    const auto errorWith = [&](const CurveLawOptions& options) {
      const std::vector<CurvePrediction> p = predictFinalLosses(runs, options);
      EXPECT_EQ(p.size(), 1u);
      EXPECT_TRUE(!p.empty() && p[0].loss);
      return p.empty() || !p[0].loss ? HUGE_VAL
                                     : std::abs(*p[0].loss - *full.final_loss) / *full.final_loss;
    };
    sum_default += errorWith(s.options);
    sum_early += errorWith(from_4_percent);
  }
  const double fitted_from_a_fifth = sum_default / draws, fitted_from_4 = sum_early / draws;
  std::printf("mean relative error at half a run: fitted from 20%% %.4f, from 4%% %.4f\n",
              fitted_from_a_fifth, fitted_from_4);
  EXPECT_LT(fitted_from_a_fifth, 0.01);
  EXPECT_GT(fitted_from_4, 1.5 * fitted_from_a_fifth);
}
