// Plain result structs of the scaling-law fits (frontier, multipliers, Chinchilla approaches).
// Each field carries a one-line formula comment, LabPlot style. No Ceres here: only fitting/*.cpp
// includes Ceres, so anything that shows a fit (CLI, GUI, exports) compiles without it.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/results_table.h"
#include "fitting/frontier_estimator.h"

namespace deepladder::fitting {

class Cancellation;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// --- inputs ---------------------------------------------------------------------------------

// One finished run and the runs of one source: core/results_table.h (storage reads them).
using ::deepladder::ResultsTable;
using ::deepladder::RunPoint;

// --- frontier fit L(C) = E + A (C/C0)^-gamma ------------------------------------------------

// The compute a projection is made at unless told otherwise (`fit`'s largest default --at,
// suggest's --target, the live projection, the workbench's plots and suggestions).
inline constexpr double kDefaultTarget = 1e26;

// Bootstrap resamples of the live projections (`run`, `watch`, the workbench's frontier view), so
// a refresh after a run ends refits one arm in tens of milliseconds; `fit` keeps
// FrontierOptions::bootstrap for the numbers one publishes.
inline constexpr int kLiveBootstrap = 200;

// More resamples than this are refused: each is a full fit, and 2e9 of them only exhaust memory.
inline constexpr int kMaxBootstrap = 100000;

// The misfit a ladder gets before its own backtest says otherwise (fitting/misfit.h): the relative
// standard deviation of the law's error at the data and its growth per decade of extrapolation,
// counted as `weight` held-out rungs. Calibrated on public ladders: docs/fits.md, "How the
// prediction interval is made".
struct MisfitPrior {
  double base = 0.0005;
  double per_decade = 0.02;
  double weight = 2.0;
};

struct FrontierOptions {
  std::string baseline = "vanilla";  // arm whose E is shared (--baseline)
  double c_ref = 1e18;               // C0 (--c-ref)
  int bootstrap = 1000;              // resamples for the intervals (--bootstrap); 0 = none
  std::uint64_t seed = 20240520;     // bootstrap seed; same seed, same intervals
  bool joint = false;                // one E fitted jointly across all arms (--joint)
  std::vector<double> at = {1e20, 1e22, 1e24, kDefaultTarget};  // computes for multipliers
  double ci_level = 0.95;                                       // two-sided percentile interval
  int threads = 2;                                              // bootstrap worker threads
  // --estimator: the paper's (default) or the robust one (frontier_estimator.h).
  FrontierEstimator estimator = FrontierEstimator::Paper;
  // Resample residuals of the point fit (every compute kept) instead of runs; steadier with the
  // few rungs of a ladder in progress (used by suggest and the live projection). An arm with
  // under two residual degrees of freedom draws Gaussian residuals with the other arms' pooled
  // scatter (none while every fit passes through its points: zero-width intervals, as resampled
  // runs give then too).
  bool residual_bootstrap = false;
  // Set by a caller that may abort the fit (fitting/cancellation.h); not part of the result, so
  // not of the cache key either. Null: the fit runs to the end.
  const Cancellation* cancellation = nullptr;
  // Widen the fit intervals into prediction intervals with the law's misfit, estimated from the
  // ladder's own nested backtest (fitting/prediction_interval.h). Off only inside that backtest's
  // point refits, which need no intervals of their own; not part of the cache key (the cached
  // per-arm shares carry fit intervals only; the misfit is added to the assembled ladder).
  bool prediction_intervals = true;
  // With prediction_intervals: also check the ladder's own predictions, each nested refit
  // estimating its misfit from one more level of nested refits (MisfitModel::checks). Off inside
  // that check, so the nesting stops there.
  bool nested_checks = true;
  MisfitPrior misfit_prior;  // the calibrated prior (a benchmark may try others)
  // The law (--form, fitting/fit_forms.h): "frontier" (E + A (C/C0)^-gamma, the default),
  // "curved" (a curvature term in ln C), "pinned-e" (E fixed to pinned_E for every arm).
  std::string form = "frontier";
  double pinned_E = kNaN;       // --pin-e: the irreducible loss, given by the user
  std::string pinned_E_source;  // --pin-e-source: where that value comes from (shown everywhere)
};

// Defaults in one place (the CLI and the GUI both start from these).
inline FrontierOptions defaultFrontierOptions() {
  return FrontierOptions{};
}

struct ArmFit {
  std::string arm;
  bool E_free = false;        // true for the baseline (or every arm with --joint)
  double E = kNaN;            // irreducible loss: lim_{C->inf} L(C)
  double A = kNaN;            // reducible loss at C0: L(C0) - E
  double gamma = kNaN;        // exponent: -d ln(L - E) / d ln C
  double E_se = kNaN;         // sqrt(cov_EE), cov = s^2 (J^T J)^-1; NaN when E is fixed
  double A_se = kNaN;         // sqrt(cov_AA); OLS line: exp(b0) se(b0) (delta method)
  double gamma_se = kNaN;     // sqrt(cov_gg); OLS line: sqrt(s^2 / Sxx); NaN when dof = 0
  int dof = 0;                // n - free parameters of the fit (n - 2 E fixed, n - 3 E free)
  double gamma_t_lo = kNaN;   // gamma - t_{(1+level)/2, dof} gamma_se (Student t interval)
  double gamma_t_hi = kNaN;   // gamma + t_{(1+level)/2, dof} gamma_se
  double E_ci_lo = kNaN;      // bootstrap percentile (1-level)/2 of E
  double E_ci_hi = kNaN;      // bootstrap percentile (1+level)/2 of E
  double A_ci_lo = kNaN;      // bootstrap percentile (1-level)/2 of A
  double A_ci_hi = kNaN;      // bootstrap percentile (1+level)/2 of A
  double gamma_ci_lo = kNaN;  // bootstrap percentile (1-level)/2 of gamma
  double gamma_ci_hi = kNaN;  // bootstrap percentile (1+level)/2 of gamma
  int n_points = 0;           // n: points of this arm
  int bootstrap_used = 0;     // resamples whose fit of this arm gave finite A and gamma
  std::string method;         // armFitMethod(): "huber_e_free", "ols_log_excess_e_fixed", ...
  std::string no_fit;         // why A and gamma are NaN ("" when fitted), naming the point
  double rss = kNaN;          // sum_i (L_i - Lhat_i)^2
  double rms = kNaN;          // sqrt(rss / n)
  double huber_delta =
      0.0;  // 1.345 * 1.4826 * MAD(residuals of the least-squares fit); 0 = no refit
  std::vector<std::string> at_bound;  // parameters that ended on a bound, e.g. "E=0", "gamma=0"
  // The form's own parameters beyond E, A, gamma (FitForm::extraParameters), e.g. the curvature
  // delta of "curved"; empty for the power law.
  std::vector<double> extra;
  std::vector<double> extra_se;  // their standard errors (NaN where unknown)
  int rungs = 0;                 // distinct computes the arm was fitted on
  double max_compute = kNaN;     // largest compute the arm was fitted on
};

// At a baseline rung: how much more compute the baseline spends than the arm for the same loss.
struct MeasuredMultiplier {
  double compute = kNaN;     // C_b: the baseline rung's compute
  double multiplier = kNaN;  // C_b / C_a, C_a from log-linear interpolation of the arm's rungs
};

// From the fits, at a baseline compute C: M(C) = C / C_a where L_arm(C_a) = L_base(C).
struct ProjectedMultiplier {
  double compute = kNaN;     // C: baseline compute
  double multiplier = kNaN;  // M(C) = C / (C0 (A_a / (A_b (C/C0)^-g_b))^(1/g_a))
  // The prediction interval (what to read): the fit interval widened in ln M by the misfit of
  // both losses it comes from (fitting/prediction_interval.h); NaN where there is none.
  double ci_lo = kNaN;
  double ci_hi = kNaN;
  double fit_lo = kNaN;  // fit interval: bootstrap percentile (1-level)/2 of M(C)
  double fit_hi = kNaN;  // fit interval: bootstrap percentile (1+level)/2 of M(C)
};

struct ArmMultipliers {
  std::string arm;
  std::vector<MeasuredMultiplier> measured;  // absent rungs (loss outside the arm's range) left out
  std::vector<ProjectedMultiplier> projected;  // one per FrontierOptions::at
  double per_decade = kNaN;                    // M(10 C) / M(C) = 10^(1 - g_b / g_a) with E shared
  double per_decade_lo = kNaN;                 // bootstrap percentile (1-level)/2 of per_decade
  double per_decade_hi = kNaN;                 // bootstrap percentile (1+level)/2 of per_decade
};

// One bootstrap replicate's fit of one arm (kept so that bands of any derived curve, L(C) or
// M(C), come from the very resamples behind the parameter intervals).
struct FrontierDraw {
  double E = kNaN;            // E of the replicate's fit
  double A = kNaN;            // A of the replicate's fit
  double gamma = kNaN;        // gamma of the replicate's fit
  std::vector<double> extra;  // the form's own parameters (empty for the power law)
};

// --- prediction intervals (fitting/misfit.h, fitting/prediction_interval.h) ---------------------

// How wrong the law's shape is, as a function of the distance of a prediction beyond the data: the
// relative error of a predicted loss has standard deviation sigma(d) = base + per_decade * d at d
// decades beyond the arm's largest fitted compute (d <= 0: base).
// One arm's held-out rungs in the ladder's nested backtest, against the prediction intervals each
// refit would have printed from its own rungs (a residual bootstrap's fit interval widened by the
// misfit of its own nested backtest, one level down).
struct ArmBacktestCheck {
  std::string arm;
  int points = 0;         // held-out rungs with a prediction interval
  int misses = 0;         // of those, outside it
  int over = 0;           // of those, predicted above the measurement
  double p_value = kNaN;  // P(X >= misses) for X ~ Binomial(points, 1 - level)
};

struct MisfitModel {
  double base = kNaN;        // sigma at the data (relative error of L)
  double per_decade = kNaN;  // growth of sigma per decade of extrapolation
  double quantile = kNaN;    // t quantile that turns sigma into a half-width at the fit's level
  int points = 0;            // held-out rungs of the ladder's own nested backtest behind it
  int refits = 0;            // refits of that backtest (k = 1, 2, ...)
  double prior_weight = 0;   // pseudo-points of the calibrated prior it was shrunk towards
  std::string source;        // "ladder (24 held-out rungs) + prior" | "prior only (...)"
  std::vector<ArmBacktestCheck> checks;  // per arm, the nested backtest's misses
  // Per non-baseline arm: the growth per decade of the misfit of its loss *relative to the
  // baseline's* (the trend of e_arm - e_base over the rungs both held out, shrunk towards half the
  // prior's slope). A multiplier compares two losses; arms one pipeline trained err together
  // (every held-out rung of the published FineWeb ladder was over-predicted), so what moves the
  // multiplier is the difference, not each error on its own.
  std::map<std::string, double> difference_per_decade;
};

// A predicted loss of one arm at one compute, with both intervals.
struct LossPrediction {
  double compute = kNaN;  // C
  double loss = kNaN;     // L(C) of the point fit
  double decades = kNaN;  // log10(C / the arm's largest fitted compute)
  double misfit = kNaN;   // q sigma(d): the misfit's relative half-width at this distance
  double fit_lo = kNaN;   // fit interval: bootstrap percentile (1-level)/2 of L(C)
  double fit_hi = kNaN;   // fit interval: bootstrap percentile (1+level)/2 of L(C)
  double lo = kNaN;       // prediction interval: L - sqrt((L - fit_lo)^2 + (q sigma(d) L)^2)
  double hi = kNaN;       // prediction interval: L + sqrt((fit_hi - L)^2 + (q sigma(d) L)^2)
  // Why lo and hi are NaN ("" when they are not): "no interval (3 rungs, 3 parameters)", ...
  std::string no_interval;
};

// The projected losses of one arm at each FrontierOptions::at.
struct ArmLossProjections {
  std::string arm;
  std::vector<LossPrediction> at;
};

// --- sweeps and diagnostics (computed with every fit, stored with it) -------------------------

// One point of a rung's sweep: its label and the mean final loss of its seeds.
struct SweepPointLoss {
  std::string label;        // "lr_mult0.5" (core/ladder/sweep.h)
  double mean_loss = kNaN;  // mean over seeds of the final validation loss
  int seeds = 0;            // finished runs behind the mean
};

// The sweep point a rung's fit used (fitting/sweep_envelope.h): the lowest mean loss.
struct SweepRungChoice {
  std::string arm;
  std::string size;
  double compute = kNaN;               // mean training FLOPs of the chosen point's runs
  std::string chosen;                  // label of the point with the lowest mean loss
  double mean_loss = kNaN;             // its mean loss
  std::vector<SweepPointLoss> points;  // every point of the rung, by label
  // The chosen point sits at an end of an axis with more than one value tried ("best at edge:
  // extend the sweep"); edge names the axis and the end ("lr_mult 0.25, the smallest tried").
  bool at_edge = false;
  std::string edge;
};

// How far a projection at one --at compute lies from the data.
struct ExtrapolationDistance {
  double compute = kNaN;  // C (an --at value)
  double decades = kNaN;  // log10(C / largest fitted compute); <= 0 inside the data
  // q sigma(d) of the fit's misfit model: the relative error to expect of a loss predicted there,
  // from the ladder's own nested backtest (NaN without one)
  double expected_error = kNaN;
  // "interpolation" (inside the fitted compute range), "extrapolation" (beyond it, up to 3
  // decades; also below the smallest rung), "projection" (more than 3 decades beyond)
  std::string regime;
};

// One reason not to trust a fit, as the fit found it.
struct FitDiagnostic {
  // "e_at_bound" | "shared_e" | "backtest_failed" | "few_rungs" | "projection" | "sweep_edge"
  std::string kind;
  std::string arm;      // the arm it is about ("" for the whole fit)
  std::string message;  // one line, printed as is by the CLI, the exports and the GUI
};

struct FitDiagnostics {
  double min_fitted_compute = kNaN;                  // smallest compute of any fitted point
  double max_fitted_compute = kNaN;                  // largest compute of any fitted point
  std::vector<ExtrapolationDistance> extrapolation;  // one per FrontierOptions::at
  std::vector<FitDiagnostic> warnings;               // empty: nothing found
  // The curvature test of each arm (NaN when it has under 4 rungs or no E below its losses):
  // slope change d = 2 b2 (x_max - x_min) of the quadratic fit of ln(L - E) on x = ln(C/C0),
  // and its standard error.
  std::vector<std::string> curvature_arms;
  std::vector<double> slope_change, slope_change_se;
};

struct FrontierResult {
  std::string form = "frontier";  // the law fitted (fitting/fit_forms.h)
  double pinned_E = kNaN;         // form "pinned-e": the E every arm was fitted with
  std::string pinned_E_source;    // and where the user said it comes from
  // --form auto: why this form was chosen ("" when the user named it)
  std::string form_choice;
  double c_ref = 1e18;          // C0
  std::string baseline;         // arm whose E is shared
  bool joint = false;           // E fitted jointly across arms
  int bootstrap_requested = 0;  // resamples asked for
  int bootstrap_used = 0;       // resamples whose fits succeeded
  // The intervals came from resampled residuals (FrontierOptions::residual_bootstrap) rather
  // than resampled runs.
  bool residual_bootstrap = false;
  double ci_level = 0.95;                   // interval level
  std::vector<ArmFit> arms;                 // baseline first, then the others by name
  std::vector<ArmMultipliers> multipliers;  // every non-baseline arm, same order as arms
  // [replicate][arm], arms in the order of `arms`: every bootstrap fit that succeeded
  // (bootstrap_used of them); empty without a bootstrap. See fitting/frontier_band.h.
  std::vector<std::vector<FrontierDraw>> bootstrap_draws;
  FrontierEstimator estimator = FrontierEstimator::Paper;  // the estimator that made the fits
  // Paper estimator only (arm empty otherwise): the baseline's own OLS line of ln(L - E) on
  // ln(C/C0) with its fitted E held fixed, the value the paper's ladder figure prints for the
  // baseline. The multipliers use arms[0] (the E-free fit), as the paper's projections do.
  ArmFit baseline_line;
  // The fit was cancelled (FrontierOptions::cancellation) before it ended: the fields are
  // incomplete (bootstrap_used counts the resamples that were fitted before it stopped).
  bool cancelled = false;
  // Ladders with a sweep: the point each (arm, size) used (empty without a sweep).
  std::vector<SweepRungChoice> sweep;
  // What the fit says about its own trust (fitting/fit_diagnostics.h).
  FitDiagnostics diagnostics;
  // The law's misfit estimated from the ladder's own nested backtest, and every arm's projected
  // loss at each --at with its fit and prediction intervals (fitting/prediction_interval.h).
  // Empty / NaN when FrontierOptions::prediction_intervals is off.
  MisfitModel misfit;
  std::vector<ArmLossProjections> loss_projections;  // same order as arms
};

// --- Chinchilla: L(N, D) = E + A / N^alpha + B / D^beta ------------------------------------

struct SizePoint {
  double params = 0.0;          // N
  double tokens = 0.0;          // D
  double loss = 0.0;            // L
  double compute_flops = kNaN;  // C; 6 N D when the source has none
};

struct ChinchillaFit {      // Approach 3
  double E = kNaN;          // exp(e)
  double A = kNaN;          // exp(a)
  double B = kNaN;          // exp(b)
  double alpha = kNaN;      // N exponent
  double beta = kNaN;       // D exponent
  double objective = kNaN;  // sum_i Huber_1e-3(LSE(a - alpha ln N_i, b - beta ln D_i, e) - ln L_i)
  double a = kNaN;          // N_opt ~ C^a, a = beta / (alpha + beta)
  double b = kNaN;          // D_opt ~ C^b, b = alpha / (alpha + beta)
  int starts = 0;           // grid starts tried (4500)
  int converged = 0;        // starts whose L-BFGS run reported convergence
  bool best_converged = true;  // false when no start converged and the best unconverged is shown
};

struct EnvelopePoint {
  double compute_flops = kNaN;  // C
  double loss = kNaN;           // min loss over points with compute <= C
  double params = kNaN;         // N of the point on the envelope
  double tokens = kNaN;         // D of the point on the envelope
};

struct Approach1Result {                // lower envelope of loss vs FLOPs
  std::vector<EnvelopePoint> envelope;  // points with a loss below every cheaper point
  double a = kNaN;                      // slope of ln N vs ln C over the envelope: N_opt ~ C^a
  double b = kNaN;                      // slope of ln D vs ln C over the envelope: D_opt ~ C^b
};

struct IsoFlopBudget {
  double compute_flops = kNaN;  // C of the budget (geometric mean of its points)
  int n_points = 0;             // sizes trained at this budget
  double n_opt = kNaN;          // exp(-q1 / (2 q2)) of the parabola L = q0 + q1 ln N + q2 ln^2 N
  double d_opt = kNaN;          // C / (6 N_opt)
  double loss_min = kNaN;       // parabola value at N_opt
};

struct Approach2Result {               // IsoFLOP parabolas
  std::vector<IsoFlopBudget> budgets;  // budgets with >= 3 sizes and a convex parabola
  double a = kNaN;                     // slope of ln N_opt vs ln C
  double b = kNaN;                     // slope of ln D_opt vs ln C
  double n_coef = kNaN;                // N_opt = n_coef C^a
  double d_coef = kNaN;                // D_opt = d_coef C^b
};

}  // namespace deepladder::fitting
