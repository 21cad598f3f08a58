// Bootstrap bands of the fitted frontier and of the projected multiplier (see frontier_band.h).
#include "fitting/frontier_band.h"

#include <cmath>

#include "fitting/fit_forms.h"
#include "fitting/frontier_fit.h"
#include "fitting/frontier_model.h"

namespace deepladder::fitting {
namespace {

// The point fit's curve at every compute and its percentile band: `draw_curve(draws, C)` is
// evaluated on every replicate; non-finite values (a replicate that cannot reach the loss) are
// left out of the percentiles.
template <typename PointCurve, typename DrawCurve>
std::vector<BandPoint> pointwiseBand(const FrontierResult& result,
                                     const std::vector<double>& computes, PointCurve point_curve,
                                     DrawCurve draw_curve) {
  const double lo_q = (1.0 - result.ci_level) / 2, hi_q = 1.0 - lo_q;
  std::vector<BandPoint> out;
  out.reserve(computes.size());
  std::vector<double> samples;
  samples.reserve(result.bootstrap_draws.size());
  for (double c : computes) {
    BandPoint p;
    p.compute = c;
    p.value = point_curve(c);
    samples.clear();
    for (const auto& draws : result.bootstrap_draws) {
      const double v = draw_curve(draws, c);
      if (std::isfinite(v)) samples.push_back(v);
    }
    if (!samples.empty()) {
      p.lo = percentile(samples, lo_q);
      p.hi = percentile(samples, hi_q);
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace

std::vector<double> logSpacedComputes(double lo, double hi, int points) {
  std::vector<double> out;
  if (!(lo > 0) || !(hi >= lo) || !std::isfinite(hi) || points < 1) return out;
  if (points == 1) return {lo};
  const double a = std::log10(lo), b = std::log10(hi);
  for (int i = 0; i < points; ++i) out.push_back(std::pow(10.0, a + (b - a) * i / (points - 1)));
  return out;
}

std::vector<BandPoint> frontierBand(const FrontierResult& result, size_t arm_index,
                                    const std::vector<double>& computes) {
  if (arm_index >= result.arms.size()) return {};
  const ArmFit& fit = result.arms[arm_index];
  const double c0 = result.c_ref;
  const FitForm& form = formOf(result);
  return pointwiseBand(
      result, computes, [&](double c) { return formLoss(form, fit, c, c0); },
      [&](const std::vector<FrontierDraw>& draws, double c) {
        if (arm_index >= draws.size()) return kNaN;
        return formLoss(form, draws[arm_index], c, c0);
      });
}

std::vector<BandPoint> multiplierBand(const FrontierResult& result, size_t arm_index,
                                      const std::vector<double>& computes) {
  if (arm_index == 0 || arm_index >= result.arms.size()) return {};
  const ArmFit& base = result.arms[0];
  const ArmFit& arm = result.arms[arm_index];
  const double c0 = result.c_ref;
  const FitForm& form = formOf(result);
  return pointwiseBand(
      result, computes, [&](double c) { return form.multiplier(base, arm, c, c0); },
      [&](const std::vector<FrontierDraw>& draws, double c) {
        if (arm_index >= draws.size()) return kNaN;
        return form.multiplier(draws[0], draws[arm_index], c, c0);
      });
}

}  // namespace deepladder::fitting
