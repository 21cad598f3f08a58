// The law's misfit from a nested backtest (see misfit.h).
#include "fitting/misfit.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "fitting/student_t.h"

namespace deepladder::fitting {

MisfitModel estimateMisfit(const std::vector<MisfitSample>& all, int refits, double level,
                           const MisfitPrior& prior,
                           const std::map<std::string, double>& fit_slope_variance) {
  std::vector<MisfitSample> samples;
  for (const MisfitSample& m : all)
    if (std::isfinite(m.rel_error) && std::isfinite(m.decades) && m.decades > 0)
      samples.push_back(m);
  MisfitModel model;
  model.base = prior.base;
  model.points = static_cast<int>(samples.size());
  model.refits = refits;
  model.prior_weight = prior.weight;
  // Per arm, the slope of the error on the distance through the origin, and its weight n_a.
  std::map<std::string, std::pair<double, double>> sums;  // arm -> (sum e d, sum d^2)
  std::map<std::string, int> counts;
  for (const MisfitSample& m : samples) {
    auto& [ed, dd] = sums[m.arm];
    ed += m.rel_error * m.decades;
    dd += m.decades * m.decades;
    ++counts[m.arm];
  }
  double weighted = prior.weight * prior.per_decade * prior.per_decade, weight = prior.weight;
  for (const auto& [arm, sum] : sums) {
    const double slope = sum.first / sum.second;
    const auto explained = fit_slope_variance.find(arm);
    const double v = explained == fit_slope_variance.end() ? 0.0 : explained->second;
    weighted += counts[arm] * std::max(0.0, slope * slope - v);
    weight += counts[arm];
  }
  model.per_decade = weight > 0 ? std::sqrt(weighted / weight) : prior.per_decade;
  model.quantile = studentTQuantile((1 + level) / 2, 1e9);
  model.source = samples.empty()
                     ? "prior only (no rung of this ladder could be held out)"
                     : "ladder (" + std::to_string(model.points) + " held-out rungs in " +
                           std::to_string(refits) + " refits) shrunk towards the prior";
  return model;
}

double misfitSigma(const MisfitModel& model, double decades) {
  if (!std::isfinite(model.base) || !std::isfinite(model.per_decade)) return kNaN;
  return model.base + model.per_decade * std::max(0.0, decades);
}

Interval widenByMisfit(double value, double fit_lo, double fit_hi, double misfit_half_width) {
  if (!std::isfinite(value) || !std::isfinite(fit_lo) || !std::isfinite(fit_hi) ||
      !std::isfinite(misfit_half_width))
    return {};
  const double below = std::max(0.0, value - fit_lo), above = std::max(0.0, fit_hi - value);
  return {value - std::hypot(below, misfit_half_width),
          value + std::hypot(above, misfit_half_width)};
}

}  // namespace deepladder::fitting
