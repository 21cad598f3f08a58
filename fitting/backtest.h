// Backtests of a fit: for k = 1..K, drop every arm's k rungs of largest compute, refit the rest
// with the same estimator and options, and predict the rungs left out. A backtest answers "how
// far can this extrapolation be trusted?" with the ladder's own data: each held-out rung is a
// prediction a larger run has confirmed or refuted, unlike a projection past the ladder's top,
// which nothing can check.
//
// Frontier form: the estimator and options of `fit` (the baseline drops its top k rungs too,
// since E is shared); a rung is a distinct compute of an arm (seeds at one compute averaged, as
// the measured multipliers average them). The interval of a prediction is the bootstrap band of
// the refitted L(C) at that compute (frontier_band.h), made by the fit's own resampling (runs, or
// residuals with FrontierOptions::residual_bootstrap): it describes the fitted curve, not the
// scatter of one more run. Chinchilla form: the k points of largest 6ND compute are held out
// and predicted by approach 3 refitted on the rest; that fit has no bootstrap, so no intervals.
// A rung is held out only where at least kMinRungsLeft rungs remain to fit; otherwise the arm
// and k are listed in `skipped` with the reason, as is an arm whose refit fails.
#pragma once

#include <string>
#include <vector>

#include "fitting/chinchilla.h"
#include "fitting/fit_types.h"

namespace deepladder::fitting {

// Rungs (points for the Chinchilla form) an arm must keep after its top k are dropped.
inline constexpr int kMinRungsLeft = 3;

// One held-out rung (the fields of `fit --backtest --json`'s "backtest" array).
struct BacktestPoint {
  std::string arm;               // arm of the rung ("all" for the Chinchilla form)
  int k = 0;                     // rungs held out per arm in this refit
  int rank = 0;                  // 1 = the arm's largest compute, 2 = the next, ...
  double compute = kNaN;         // C of the held-out rung (6ND for the Chinchilla form)
  double measured_loss = kNaN;   // L measured (mean over the rung's runs)
  double predicted_loss = kNaN;  // L(C) of the refit
  double rel_error = kNaN;       // (predicted - measured) / measured
  // The prediction interval the refit would have printed (fitting/prediction_interval.h: its
  // fit interval widened by the misfit of its own nested backtest); NaN where it has none.
  double lo = kNaN;
  double hi = kNaN;
  double fit_lo = kNaN;       // fit interval: bootstrap percentile (1-level)/2 of the refit's L(C)
  double fit_hi = kNaN;       // fit interval: bootstrap percentile (1+level)/2 of the refit's L(C)
  std::string no_interval;    // why lo and hi are NaN ("no interval (3 rungs, 3 parameters)")
  double misfit = kNaN;       // the refit's q sigma(d) here: its misfit's relative half-width
  bool has_interval = false;  // lo and hi are finite
  bool covered = false;       // lo <= measured <= hi (false without an interval)
  bool fit_covered = false;   // fit_lo <= measured <= fit_hi
  double extrapolation = kNaN;  // C / largest compute of the arm's rungs kept in the refit
  // Non-baseline arms: the multiplier at the baseline's held-out rung of the same rank, measured
  // on all rungs (interpolated as `fit` measures it) and predicted by the refit; NaN where the
  // baseline has no rung of that rank held out or the arm's rungs do not bracket its loss.
  double multiplier_compute = kNaN;    // C of that baseline rung
  double measured_multiplier = kNaN;   // C_b / C_a, C_a interpolated in the arm's rungs
  double predicted_multiplier = kNaN;  // M(C_b) from the refit's baseline and arm
};

// An arm and k for which nothing was held out, and why.
struct BacktestSkip {
  std::string arm;
  int k = 0;
  std::string reason;
};

// Errors of the held-out rungs of one arm (or "all" arms) at one k.
struct BacktestSummaryRow {
  std::string arm;               // an arm, or "all"
  int k = 0;                     // rungs held out per arm
  int points = 0;                // n: held-out rungs with a prediction
  double mean_abs_error = kNaN;  // sum_i |rel_error_i| / n
  double max_abs_error = kNaN;   // max_i |rel_error_i|
  double bias = kNaN;            // sum_i rel_error_i / n (> 0: over-predicted loss)
  int intervals = 0;             // rungs with a prediction interval
  int covered = 0;               // of those, rungs whose interval covered the measurement
  int missed = 0;                // intervals - covered
  int no_interval = 0;           // points - intervals: rungs predicted without an interval
  int fit_intervals = 0;         // rungs with a fit interval
  int fit_covered = 0;           // of those, rungs whose fit interval covered the measurement
};

struct BacktestResult {
  std::string form = "frontier";      // "frontier" | "chinchilla"
  std::string law;                    // the fit form's description (fitting/fit_form.h)
  int max_k = 0;                      // K
  double ci_level = 0.95;             // level of the intervals
  int bootstrap = 0;                  // resamples of each refit (0: no intervals)
  std::string resampled;              // "runs" | "residuals" | "" (no bootstrap)
  std::vector<std::string> arms;      // every arm of the table, the baseline first, as the fit
  std::vector<BacktestPoint> points;  // by k, then arm (baseline first), then rank
  std::vector<BacktestSkip> skipped;  // by k, then arm
  std::vector<BacktestSummaryRow> summary;  // by k: "all" first, then every arm
  std::vector<std::string> lines;           // one quotable line per k (backtestLine)
};

// Frontier backtest of `table` with `options` (the fit's own), k = 1..max_k. UserError for
// max_k < 1 and for the checks fitFrontier makes on the whole table's options.
BacktestResult backtestFrontier(const ResultsTable& table, const FrontierOptions& options,
                                int max_k);

// Chinchilla backtest of `points` (approach 3), k = 1..max_k; the largest-6ND points are held out.
// Each refit gets the intervals `fit --form chinchilla` would print from its own points
// (chinchilla_intervals.h): `interval` supplies bootstrap, seed, ci_level, threads and the misfit
// prior (bootstrap 0: no intervals).
BacktestResult backtestChinchilla(
    const std::vector<SizePoint>& points, const ChinchillaOptions& options, int max_k,
    const FrontierOptions& interval = [] {
      FrontierOptions o;
      o.bootstrap = 0;
      return o;
    }());

// Summary rows of `points` grouped by k, "all" first then per arm (the arms in points' order).
std::vector<BacktestSummaryRow> summarizeBacktest(const std::vector<BacktestPoint>& points);

// "held out 2 top rungs per arm: mean |error| 0.31%, bias +0.31%, 95% prediction intervals covered
// 14 of 16 (2 without an interval)" for an "all" row; "(no intervals)" in place of the coverage
// when none was computed.
std::string backtestLine(const BacktestSummaryRow& all, double ci_level, const std::string& form);

}  // namespace deepladder::fitting
