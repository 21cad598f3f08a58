// Bootstrap and misfit intervals of the Chinchilla form (see chinchilla_intervals.h).
#include "fitting/chinchilla_intervals.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include "core/errors.h"
#include "core/parallel_for.h"
#include "fitting/frontier_fit.h"
#include "fitting/misfit.h"

namespace deepladder::fitting {
namespace {

double sixND(const SizePoint& p) {
  return 6.0 * p.params * p.tokens;
}

double lossAt(const ChinchillaFit& f, double n, double d) {
  return f.E + f.A / std::pow(n, f.alpha) + f.B / std::pow(d, f.beta);
}

std::vector<SizePoint> byCompute(std::vector<SizePoint> points) {
  std::stable_sort(points.begin(), points.end(),
                   [](const SizePoint& a, const SizePoint& b) { return sixND(a) < sixND(b); });
  return points;
}

ChinchillaOptions startedFrom(const ChinchillaFit& fit, const ChinchillaOptions& options) {
  ChinchillaOptions o = options;
  o.threads = 1;
  o.starts = {{std::log(fit.A), std::log(fit.B), std::log(fit.E), fit.alpha, fit.beta}};
  return o;
}

}  // namespace

ChinchillaWithIntervals fitChinchillaWithIntervals(const std::vector<SizePoint>& points,
                                                   const ChinchillaOptions& options,
                                                   const FrontierOptions& interval, bool nested) {
  ChinchillaWithIntervals out;
  out.fit = fitChinchillaApproach3(points, options);
  out.points = static_cast<int>(points.size());
  out.ci_level = interval.ci_level;
  for (const SizePoint& p : points) out.max_compute = std::max(out.max_compute, sixND(p));
  if (!std::isfinite(out.max_compute)) out.max_compute = kNaN;
  const ChinchillaOptions replicate_options = startedFrom(out.fit, options);

  // Bootstrap over points.
  if (interval.bootstrap > 0) {
    std::vector<std::optional<ChinchillaFit>> reps(interval.bootstrap);
    const int threads = std::max(1, std::min(interval.threads, interval.bootstrap));
    parallelFor(threads, [&](int t) {
      for (int i = t; i < interval.bootstrap; i += threads) {
        std::seed_seq seq{static_cast<std::uint32_t>(interval.seed), static_cast<std::uint32_t>(i),
                          0x43484eu};
        std::mt19937_64 rng(seq);
        std::uniform_int_distribution<size_t> pick(0, points.size() - 1);
        std::vector<SizePoint> sample;
        for (size_t j = 0; j < points.size(); ++j) sample.push_back(points[pick(rng)]);
        try {
          reps[i] = fitChinchillaApproach3(sample, replicate_options);
        } catch (const std::exception&) {
        }
      }
    });
    for (const auto& r : reps)
      if (r && std::isfinite(r->E) && std::isfinite(r->alpha)) out.draws.push_back(*r);
  }

  // The misfit from a nested backtest: the k points of largest 6ND held out, k = 1.. while
  // kChinchillaMinPoints remain, each refit started from the full fit.
  if (nested) {
    const std::vector<SizePoint> sorted = byCompute(points);
    const int n = static_cast<int>(sorted.size());
    std::vector<MisfitSample> samples;
    int refits = 0;
    for (int k = 1; n - k >= kChinchillaMinPoints; ++k) {
      const std::vector<SizePoint> kept(sorted.begin(), sorted.end() - k);
      ChinchillaFit refit;
      try {
        refit = fitChinchillaApproach3(kept, replicate_options);
      } catch (const UserError&) {
        continue;
      }
      ++refits;
      const double top = sixND(kept.back());
      for (int rank = 1; rank <= k; ++rank) {
        const SizePoint& s = sorted[n - rank];
        samples.push_back({"all", (lossAt(refit, s.params, s.tokens) - s.loss) / s.loss,
                           std::log10(sixND(s) / top)});
      }
    }
    out.misfit = estimateMisfit(samples, refits, interval.ci_level, interval.misfit_prior);
  }
  return out;
}

LossPrediction predictChinchilla(const ChinchillaWithIntervals& fit, double params, double tokens) {
  LossPrediction p;
  p.compute = 6.0 * params * tokens;
  p.loss = lossAt(fit.fit, params, tokens);
  p.decades = std::log10(p.compute / fit.max_compute);
  p.misfit = fit.misfit.quantile * misfitSigma(fit.misfit, p.decades);
  if (fit.points - 5 <= 0) {
    p.no_interval = "no interval (" + std::to_string(fit.points) + " points, 5 parameters)";
    return p;
  }
  if (fit.draws.empty()) {
    p.no_interval = "no interval (no bootstrap)";
    return p;
  }
  std::vector<double> samples;
  for (const ChinchillaFit& d : fit.draws) {
    const double v = lossAt(d, params, tokens);
    if (std::isfinite(v)) samples.push_back(v);
  }
  const double lo_q = (1 - fit.ci_level) / 2;
  p.fit_lo = percentile(samples, lo_q);
  p.fit_hi = percentile(samples, 1 - lo_q);
  if (!(p.fit_hi - p.fit_lo > 1e-12 * std::fabs(p.loss))) {
    p.no_interval = "no interval (the bootstrap's band has no width)";
    p.fit_lo = p.fit_hi = kNaN;
    return p;
  }
  const Interval widened = widenByMisfit(p.loss, p.fit_lo, p.fit_hi, p.misfit * p.loss);
  p.lo = widened.lo;
  p.hi = widened.hi;
  if (!std::isfinite(p.lo)) p.no_interval = "no interval (no misfit estimate)";
  return p;
}

}  // namespace deepladder::fitting
