// Squaring-ladder trends against log compute (see squaring_trend.h).
#include "fitting/squaring_trend.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/errors.h"

namespace deepladder::fitting {

double LogComputeTrend::computeReaching(double target, double c_ref) const {
  if (!defined || !(b > 0)) return NAN;
  return c_ref * std::pow(10.0, (target - a) / b);
}

int64_t depthRungsCleared(int64_t max_t) {
  int64_t rungs = 0;
  for (int64_t t = 1; t <= max_t; t *= 2) ++rungs;
  return rungs;
}

LogComputeTrend fitLogComputeTrend(const std::vector<double>& compute,
                                   const std::vector<double>& values, double c_ref) {
  LogComputeTrend fit;
  const size_t n = std::min(compute.size(), values.size());
  fit.points = static_cast<int64_t>(n);
  std::set<double> distinct(compute.begin(), compute.begin() + static_cast<std::ptrdiff_t>(n));
  if (distinct.size() < 2) return fit;
  std::vector<double> x(n);
  double xbar = 0, ybar = 0;
  for (size_t i = 0; i < n; ++i) {
    x[i] = std::log10(compute[i] / c_ref);
    xbar += x[i];
    ybar += values[i];
  }
  xbar /= static_cast<double>(n);
  ybar /= static_cast<double>(n);
  double sxx = 0, sxy = 0, sst = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += (x[i] - xbar) * (x[i] - xbar);
    sxy += (x[i] - xbar) * (values[i] - ybar);
    sst += (values[i] - ybar) * (values[i] - ybar);
  }
  fit.defined = true;
  fit.b = sxy / sxx;
  fit.a = ybar - fit.b * xbar;
  double sse = 0;
  for (size_t i = 0; i < n; ++i) {
    const double r = values[i] - (fit.a + fit.b * x[i]);
    sse += r * r;
  }
  if (sst > 0) fit.r2 = 1.0 - sse / sst;
  if (n >= 3) {
    const double s2 = sse / static_cast<double>(n - 2);
    fit.b_se = std::sqrt(s2 / sxx);
    fit.a_se = std::sqrt(s2 * (1.0 / static_cast<double>(n) + xbar * xbar / sxx));
  }
  return fit;
}

SquaringLadderSummary summarizeSquaringLadder(std::vector<SquaringRunPoint> runs, double c_ref) {
  if (runs.empty()) throw UserError("no finished squaring runs to summarize");
  if (!(c_ref > 0)) throw UserError("--c-ref must be a positive compute, e.g. 1e15");
  std::map<std::string, SquaringArmSummary> by_arm;
  for (auto& r : runs) {
    if (!(r.compute > 0) || !std::isfinite(r.compute))
      throw UserError("run " + std::to_string(r.run_id) + " (arm " + r.arm +
                      ") has no training compute recorded (" + std::to_string(r.compute) +
                      " FLOPs); it cannot be placed on a compute axis");
    auto& arm = by_arm[r.arm];
    arm.arm = r.arm;
    arm.runs.push_back(std::move(r));
  }
  SquaringLadderSummary summary;
  summary.c_ref = c_ref;
  for (auto& [name, arm] : by_arm) {
    std::sort(arm.runs.begin(), arm.runs.end(),
              [](const SquaringRunPoint& a, const SquaringRunPoint& b) {
                return a.compute != b.compute ? a.compute < b.compute : a.run_id < b.run_id;
              });
    std::vector<double> c, ood, rungs;
    for (const auto& r : arm.runs) {
      c.push_back(r.compute);
      ood.push_back(r.ood_exact);
      rungs.push_back(static_cast<double>(depthRungsCleared(r.max_t_seen)));
    }
    arm.ood_exact = fitLogComputeTrend(c, ood, c_ref);
    arm.rungs_seen = fitLogComputeTrend(c, rungs, c_ref);
    summary.arms.push_back(std::move(arm));
  }
  return summary;
}

}  // namespace deepladder::fitting
