// Bootstrap bands of the fitted frontier and of the projected multiplier (see frontier_band.h).
#include "fitting/frontier_band.h"

#include <cmath>

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
  return pointwiseBand(
      result, computes, [&](double c) { return frontierLoss(c, c0, fit.E, fit.A, fit.gamma); },
      [&](const std::vector<FrontierDraw>& draws, double c) {
        if (arm_index >= draws.size()) return kNaN;
        const FrontierDraw& d = draws[arm_index];
        return frontierLoss(c, c0, d.E, d.A, d.gamma);
      });
}

std::vector<BandPoint> multiplierBand(const FrontierResult& result, size_t arm_index,
                                      const std::vector<double>& computes) {
  if (arm_index == 0 || arm_index >= result.arms.size()) return {};
  const ArmFit& base = result.arms[0];
  const ArmFit& arm = result.arms[arm_index];
  const double c0 = result.c_ref;
  return pointwiseBand(
      result, computes,
      [&](double c) { return projectedMultiplier(c, c0, base.A, base.gamma, arm.A, arm.gamma); },
      [&](const std::vector<FrontierDraw>& draws, double c) {
        if (arm_index >= draws.size()) return kNaN;
        return projectedMultiplier(c, c0, draws[0].A, draws[0].gamma, draws[arm_index].A,
                                   draws[arm_index].gamma);
      });
}

}  // namespace deepladder::fitting
