// The loss-curve law behind the curve predictions: a run's loss at any update from its
// learning-rate schedule, Tissue et al. 2024 ("Scaling Law with Learning Rate Annealing"),
//   L(u) = L0 + A S1(u)^-alpha - C S2(u)                                    (+ delta for val/loss)
//   S1(u) = sum_{i<u} eta_i                  the forward area: rates of the updates done
//   S2(u) = sum_{i<=u} m_i,  m_i = lambda m_{i-1} + (eta_{i-1} - eta_i)   the annealing area
// with one growth term for runs that grow at update c (trainers/growth.h):
//   for u > c:  A S1^-alpha  ->  A (S1^-alpha - g (S1(c)^-alpha - S1^-alpha))
// so the grown model's reducible loss falls (1 + g) times as fast per unit of learning-rate area
// from the crossover on, continuously at c; the re-warm's zero rate at c and its ramp enter S1 and
// S2 through the schedule itself (an anneal, then a re-warm that undoes it).
//
// Why this form and not the multi-power law (Luo et al. 2025): it has four parameters where the
// multi-power law has seven, its two features are prefix sums of the schedule (any schedule,
// warmup, WSD, cosine, a growth re-warm, without a per-shape term), and its parameters split
// cleanly into a run's own (L0, A) and ones an arm shares (alpha, C, g, delta): a partial curve
// then only has to pin a straight line in S1^-alpha, the curvature, the anneal's payoff and the
// growth gain coming from the arm's other runs. The multi-power law fits long stable phases
// better, but its extra parameters are not identified from a quarter of a few-hundred-step curve.
//
// lambda: Tissue et al. use 0.999 for runs of tens of thousands of steps, a memory of ~5% of the
// run; here lambda = 1 - 1 / max(2, memory_fraction x T), the same share of a run of any length.
//
// What it does not do: intervals and backtests (fitting/curve_prediction.h), reading curves
// (storage), or the schedule (core/learning_rate_schedule.h).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace deepladder::fitting {

// One measured loss of a run.
struct CurveObservation {
  int64_t updates = 0;  // optimizer updates done when the loss was measured
  double loss = 0;      // mean loss of the batches behind it
  double weight = 1;    // batches behind it (a train bin's points, a val eval's batches)
  bool validation = false;
};

// One run's curve and schedule as the law reads them.
struct RunCurve {
  int64_t run_id = 0;
  std::string name;                      // for messages
  std::string group;                     // runs sharing alpha, C, g, delta: the arm
  std::vector<double> rates;             // every update's rate, 0 .. T-1 (T = rates.size())
  int64_t crossover = -1;                // growth update c; -1 without growth
  std::vector<CurveObservation> points;  // measured so far, ascending updates
  std::optional<double> final_loss;      // finished runs: the final validation loss
};

struct CurveLawOptions {
  double memory_fraction = 0.05;  // lambda's memory as a share of the run (see above)
  // The first updates are not fitted: the law describes the curve once the initial transient is
  // over (Tissue et al. fit from well past warmup), and on the quick ladder's 81-1,299-update runs
  // the first fifth bent the fit (mean |error| at half a run 2.98% fitting from 4%, 1.98% from
  // 20%; `deepladder predict --backtest`, docs/ladders.md). A partial curve keeps at least its
  // last third: a run cut at a quarter is fitted from 1/6 of the run on, not from 1/5.
  double skip_fraction = 0.2;             // points before max(this x T, the warmup's end) ...
  double skip_share_of_seen = 2.0 / 3.0;  // ... or, if earlier, this share of the updates measured
  int bins = 96;                // train points averaged into at most this many bins per run
  double min_decay_seen = 0.1;  // S2 seen / S2 at the end, in some run of the group, to predict
  double prior_misfit = 0.03;   // relative misfit before a group has 3 backtests (see .cpp)
  int min_backtests = 3;        // finished runs of a group before the interval is calibrated
};
CurveLawOptions defaultCurveLawOptions();

// The first update at the schedule's peak rate: the end of its warmup.
int64_t warmupEnd(const std::vector<double>& rates);

// S1 and S2 of a schedule at every update count 0 .. T (index u: after u updates).
struct ScheduleAreas {
  std::vector<double> s1, s2;
};
ScheduleAreas scheduleAreas(const std::vector<double>& rates, const CurveLawOptions& options);

// The parameters of one group and of each of its runs.
struct CurveGroupParameters {
  double alpha = 0.5;  // exponent of the forward area
  double c = 0;        // annealing coefficient (>= 0)
  double g = 0;        // growth gain (> -1; 0 without growth)
  double delta = 0;    // val/loss - train/loss at the same update
  bool growth_seen = false, decay_seen = false, validation_seen = false;
};
struct CurveRunParameters {
  double l0 = 0, a = 0;
};
struct CurveLawFit {
  std::map<std::string, CurveGroupParameters> groups;
  std::map<int64_t, CurveRunParameters> runs;  // by run_id
  double rms = 0;                              // weighted RMS residual of the fitted points
  bool converged = false;
};

// Fits every run of every group jointly (Ceres): L0, A per run, alpha, C, g, delta per group.
// Runs with no fittable point are left out (and have no entry in `runs`).
CurveLawFit fitCurveLaw(const std::vector<RunCurve>& runs, const CurveLawOptions& options);

// The law's validation loss of `run` after `updates` updates (its group's and its own fitted
// parameters); nullopt when the fit has no parameters for it.
std::optional<double> curveLawValidationLoss(const CurveLawFit& fit, const RunCurve& run,
                                             int64_t updates, const CurveLawOptions& options);

// What the law reads of a schedule at one point: ln S1 after `updates` updates, S2 there, and
// ln S1 at the crossover for a point past it (NaN before it or without growth).
struct CurveLawAreas {
  double log_s1 = 0, s2 = 0;
  double log_s1c = std::numeric_limits<double>::quiet_NaN();
  bool validation = false;
};
CurveLawAreas curveLawAreas(const ScheduleAreas& areas, int64_t crossover, int64_t updates,
                            bool validation);

// The law at one point and its derivatives with respect to (L0, ln A, alpha, C, g, delta), what
// the fit's residuals and Jacobian are made of. With x = S1^-alpha and xc = S1(c)^-alpha:
//   reducible R = x (before the crossover), (1 + g) x - g xc (after it)
//   L = L0 + A R - C S2 + delta [validation]
//   dR/dalpha = -ln(S1) x (1 + g) + g ln(S1(c)) xc,  dR/dg = x - xc.
struct CurveLawPoint {
  double loss = 0;
  std::array<double, 6> derivative{};
};
CurveLawPoint curveLawPoint(const CurveGroupParameters& group, double l0, double log_a,
                            const CurveLawAreas& at);

// The law's value from given parameters (for synthetic curves and tests).
double curveLawLoss(const CurveGroupParameters& group, const CurveRunParameters& run,
                    const ScheduleAreas& areas, int64_t crossover, int64_t updates,
                    bool validation);

}  // namespace deepladder::fitting
