// Prediction intervals of a frontier fit (see prediction_interval.h).
#include "fitting/prediction_interval.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/errors.h"
#include "fitting/backtest.h"
#include "fitting/fit_forms.h"
#include "fitting/frontier_band.h"
#include "fitting/frontier_model.h"
#include "fitting/misfit.h"
#include "fitting/student_t.h"

namespace deepladder::fitting {
namespace {

std::string rungsAndParameters(int rungs, int parameters) {
  return std::to_string(rungs) + (rungs == 1 ? " rung, " : " rungs, ") +
         std::to_string(parameters) + " parameters";
}

// The nested refits keep at least this many baseline rungs: a refit on three rungs (three
// parameters, no residual left) extrapolates far worse than the ladder it stands for.
constexpr int kMisfitRungsLeft = kMinRungsLeft + 1;

// Resamples behind each checked refit's fit interval (residuals: steady with few rungs).
constexpr int kCheckBootstrap = 40;

// P(X >= k) for X ~ Binomial(n, p).
double binomialTail(int n, int k, double p) {
  if (k <= 0) return 1.0;
  double tail = 0;
  for (int i = k; i <= n; ++i)
    tail += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) +
                     i * std::log(p) + (n - i) * std::log1p(-p));
  return std::min(1.0, tail);
}

// The ladder's nested backtest by point refits (no bootstrap), every k from 1 while the baseline
// keeps kMisfitRungsLeft rungs. With `check_refits`, each refit estimates its own misfit from a
// nested backtest of the rungs it kept (point refits again, one level down, without checks), so
// that every held-out rung carries the misfit interval that refit would have printed.
BacktestResult nestedBacktest(const ResultsTable& fitted, const FrontierOptions& options,
                              bool check_refits) {
  std::map<std::string, std::set<double>> computes;
  for (const RunPoint& p : fitted.points) computes[p.arm].insert(p.compute_flops);
  const auto base = computes.find(options.baseline);
  if (base == computes.end()) return {};
  const int max_k = static_cast<int>(base->second.size()) - kMisfitRungsLeft;
  if (max_k < 1) return {};
  FrontierOptions point = options;
  // Checked refits print prediction intervals of their own: a small residual bootstrap for the
  // fit interval (what the check's misses are counted against), the misfit from one level down.
  point.bootstrap = check_refits ? kCheckBootstrap : 0;
  point.residual_bootstrap = true;
  point.threads = 1;
  point.prediction_intervals = check_refits;
  point.nested_checks = false;
  point.at.clear();
  try {
    return backtestFrontier(fitted, point, max_k);
  } catch (const UserError&) {
    return {};  // a ladder whose points a strict backtest refuses: the prior alone
  }
}

// Per arm: how many held-out rungs fell outside the prediction interval of their refit.
std::vector<ArmBacktestCheck> checkArms(const BacktestResult& nested, double level) {
  std::vector<ArmBacktestCheck> checks;
  for (const std::string& arm : nested.arms) {
    ArmBacktestCheck c;
    c.arm = arm;
    for (const BacktestPoint& p : nested.points) {
      if (p.arm != arm || !p.has_interval) continue;
      ++c.points;
      if (!p.covered) {
        ++c.misses;
        c.over += p.rel_error > 0;
      }
    }
    if (c.points == 0) continue;
    c.p_value = binomialTail(c.points, c.misses, 1.0 - level);
    checks.push_back(c);
  }
  return checks;
}

// Per arm, how much of a nested refit's error trend its own parameter uncertainty explains: the
// fit interval's relative standard deviation at the arm's mean backtest distance d past its top
// rung, over d, squared. From the full fit's band, which is narrower than a nested refit's (fewer
// rungs): so it explains too little rather than too much. Empty without a bootstrap.
std::map<std::string, double> fitSlopeVariance(const FrontierResult& fit,
                                               const std::vector<MisfitSample>& samples) {
  std::map<std::string, double> out;
  if (fit.bootstrap_draws.empty()) return out;
  const double z = studentTQuantile((1 + fit.ci_level) / 2, 1e9);  // the band is a percentile one
  std::map<std::string, std::pair<double, int>> distance;
  for (const MisfitSample& m : samples)
    if (m.decades > 0) distance[m.arm].first += m.decades, distance[m.arm].second += 1;
  for (size_t a = 0; a < fit.arms.size(); ++a) {
    const auto it = distance.find(fit.arms[a].arm);
    if (it == distance.end() || !std::isfinite(fit.arms[a].max_compute)) continue;
    const double d = it->second.first / it->second.second;
    const BandPoint band =
        frontierBand(fit, a, {fit.arms[a].max_compute * std::pow(10.0, d)}).at(0);
    if (!(band.hi > band.lo) || !(band.value > 0)) continue;
    const double sd = (band.hi - band.lo) / (2 * z) / band.value;
    out[fit.arms[a].arm] = (sd / d) * (sd / d);
  }
  return out;
}

// Per non-baseline arm: the trend per decade of (e_arm - e_base) over the (k, rank) rungs both
// held out, through the origin, its square pooled with half the prior's slope counted as
// prior.weight rungs.
std::map<std::string, double> differenceSlopes(const BacktestResult& nested,
                                               const std::string& baseline,
                                               const MisfitPrior& prior) {
  std::map<std::pair<int, int>, double> base_error;
  for (const BacktestPoint& p : nested.points)
    if (p.arm == baseline && std::isfinite(p.rel_error)) base_error[{p.k, p.rank}] = p.rel_error;
  std::map<std::string, std::pair<double, double>> sums;  // arm -> (sum de d, sum d^2)
  std::map<std::string, int> counts;
  for (const BacktestPoint& p : nested.points) {
    if (p.arm == baseline || !std::isfinite(p.rel_error) || !(p.extrapolation > 1)) continue;
    const auto b = base_error.find({p.k, p.rank});
    if (b == base_error.end()) continue;
    const double d = std::log10(p.extrapolation);
    sums[p.arm].first += (p.rel_error - b->second) * d;
    sums[p.arm].second += d * d;
    ++counts[p.arm];
  }
  const double prior_slope = prior.per_decade / 2;
  std::map<std::string, double> out;
  for (const std::string& arm : nested.arms) {
    if (arm == baseline) continue;
    double weighted = prior.weight * prior_slope * prior_slope, weight = prior.weight;
    const auto it = sums.find(arm);
    if (it != sums.end() && it->second.second > 0) {
      const double slope = it->second.first / it->second.second;
      weighted += counts[arm] * slope * slope;
      weight += counts[arm];
    }
    out[arm] = std::sqrt(weighted / weight);
  }
  return out;
}

}  // namespace

std::string noIntervalReason(const FrontierResult& fit, size_t arm_index) {
  if (arm_index >= fit.arms.size()) return "no interval (no such arm)";
  const ArmFit& arm = fit.arms[arm_index];
  if (!arm.no_fit.empty()) return "no interval (no fit)";
  const FitForm& form = formOf(fit);
  const int p = form.parameters(arm);
  if (arm.rungs - p <= 0) return "no interval (" + rungsAndParameters(arm.rungs, p) + ")";
  if (!arm.E_free && !fit.arms.empty() && fit.arms[0].E_free) {
    const ArmFit& base = fit.arms[0];
    if (base.rungs - form.parameters(base) <= 0)
      return "no interval (its E rests on the baseline's " +
             rungsAndParameters(base.rungs, form.parameters(base)) + ")";
  }
  if (fit.bootstrap_draws.empty()) return "no interval (no bootstrap)";
  return "";
}

LossPrediction predictLoss(const FrontierResult& fit, size_t arm_index, double compute) {
  LossPrediction p;
  p.compute = compute;
  if (arm_index >= fit.arms.size()) return p;
  const ArmFit& arm = fit.arms[arm_index];
  const BandPoint band = frontierBand(fit, arm_index, {compute}).at(0);
  p.loss = band.value;
  p.decades = std::log10(compute / arm.max_compute);
  p.misfit = fit.misfit.quantile * misfitSigma(fit.misfit, p.decades);
  p.no_interval = noIntervalReason(fit, arm_index);
  if (!p.no_interval.empty()) return p;
  if (!(band.hi - band.lo > 1e-12 * std::fabs(band.value))) {
    p.no_interval = "no interval (the bootstrap's band has no width)";
    return p;
  }
  p.fit_lo = band.lo;
  p.fit_hi = band.hi;
  const Interval widened = widenByMisfit(p.loss, band.lo, band.hi, p.misfit * p.loss);
  p.lo = widened.lo;
  p.hi = widened.hi;
  if (!std::isfinite(p.lo)) p.no_interval = "no interval (no misfit estimate)";
  return p;
}

void addPredictionIntervals(FrontierResult& fit, const ResultsTable& fitted,
                            const FrontierOptions& options) {
  std::map<std::string, std::set<double>> computes;
  for (const RunPoint& p : fitted.points) computes[p.arm].insert(p.compute_flops);
  for (ArmFit& arm : fit.arms) {
    const auto it = computes.find(arm.arm);
    if (it == computes.end()) continue;
    arm.rungs = static_cast<int>(it->second.size());
    arm.max_compute = *it->second.rbegin();
  }
  fit.loss_projections.clear();
  if (!options.prediction_intervals || fit.cancelled || fit.arms.empty()) return;

  const BacktestResult nested = nestedBacktest(fitted, options, options.nested_checks);
  std::vector<MisfitSample> samples;
  std::set<int> ks;
  for (const BacktestPoint& p : nested.points) {
    samples.push_back({p.arm, p.rel_error, std::log10(p.extrapolation)});
    ks.insert(p.k);
  }
  fit.misfit = estimateMisfit(samples, static_cast<int>(ks.size()), fit.ci_level,
                              options.misfit_prior, fitSlopeVariance(fit, samples));
  if (options.nested_checks) fit.misfit.checks = checkArms(nested, fit.ci_level);
  fit.misfit.difference_per_decade =
      differenceSlopes(nested, fit.arms.front().arm, options.misfit_prior);

  for (size_t a = 0; a < fit.arms.size(); ++a) {
    ArmLossProjections projections;
    projections.arm = fit.arms[a].arm;
    for (double c : options.at) projections.at.push_back(predictLoss(fit, a, c));
    fit.loss_projections.push_back(std::move(projections));
  }

  for (size_t a = 1; a < fit.arms.size() && a - 1 < fit.multipliers.size(); ++a)
    for (ProjectedMultiplier& m : fit.multipliers[a - 1].projected) {
      m.fit_lo = m.ci_lo;
      m.fit_hi = m.ci_hi;
      const Interval widened =
          predictMultiplier(fit, a, m.compute, m.multiplier, m.fit_lo, m.fit_hi);
      m.ci_lo = widened.lo;
      m.ci_hi = widened.hi;
    }
}

Interval predictMultiplier(const FrontierResult& fit, size_t arm_index, double compute,
                           double multiplier, double fit_lo, double fit_hi) {
  // M(C) = C / C_a with L_arm(C_a) = L_base(C). A relative error e_b of the baseline's loss and
  // e_a of the arm's move ln C_a by (e_b - e_a) L / (dL_a/d ln C at C_a), so
  // sd(ln M) = L sigma_diff(d) / |dL_a/d ln C|, sigma_diff(d) = base + s_diff d the misfit of the
  // difference of the two losses (MisfitModel::difference_per_decade; an arm without one takes
  // both errors as independent, sqrt(sigma_b^2 + sigma_a^2)), d the farther of the two distances.
  if (arm_index == 0 || arm_index >= fit.arms.size()) return {};
  if (!noIntervalReason(fit, 0).empty() || !noIntervalReason(fit, arm_index).empty()) return {};
  if (!(multiplier > 0) || !(fit_lo > 0) || !(fit_hi > 0)) return {};
  if (!(fit_hi - fit_lo > 1e-12 * multiplier)) return {};  // a zero-width band: no interval
  const ArmFit& base = fit.arms[0];
  const ArmFit& arm = fit.arms[arm_index];
  const FitForm& form = formOf(fit);
  const double loss = formLoss(form, base, compute, fit.c_ref);
  const double c_arm = compute / multiplier;
  const double slope = formSlope(form, arm, c_arm, fit.c_ref);
  const double d_b = std::log10(compute / base.max_compute);
  const double d_a = std::log10(c_arm / arm.max_compute);
  const auto difference = fit.misfit.difference_per_decade.find(arm.arm);
  const double sigma =
      difference != fit.misfit.difference_per_decade.end()
          ? fit.misfit.base + difference->second * std::max(0.0, std::max(d_a, d_b))
          : std::hypot(misfitSigma(fit.misfit, d_b), misfitSigma(fit.misfit, d_a));
  const double sd_log = loss * sigma / std::fabs(slope);
  const Interval widened = widenByMisfit(std::log(multiplier), std::log(fit_lo), std::log(fit_hi),
                                         fit.misfit.quantile * sd_log);
  if (!std::isfinite(widened.lo)) return {};
  return {std::exp(widened.lo), std::exp(widened.hi)};
}

std::vector<BandPoint> predictionBand(const FrontierResult& fit, size_t arm_index,
                                      const std::vector<double>& computes) {
  std::vector<BandPoint> band = frontierBand(fit, arm_index, computes);
  if (!std::isfinite(fit.misfit.per_decade)) return band;
  for (BandPoint& p : band) {
    const LossPrediction prediction = predictLoss(fit, arm_index, p.compute);
    p.lo = prediction.lo;
    p.hi = prediction.hi;
  }
  return band;
}

std::vector<BandPoint> multiplierPredictionBand(const FrontierResult& fit, size_t arm_index,
                                                const std::vector<double>& computes) {
  std::vector<BandPoint> band = multiplierBand(fit, arm_index, computes);
  if (!std::isfinite(fit.misfit.per_decade)) return band;
  for (BandPoint& p : band) {
    const Interval widened = predictMultiplier(fit, arm_index, p.compute, p.value, p.lo, p.hi);
    p.lo = widened.lo;
    p.hi = widened.hi;
  }
  return band;
}

}  // namespace deepladder::fitting
