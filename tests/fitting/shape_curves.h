// Synthetic curves for the curve-prediction tests that are not drawn from the loss-curve law: every
// run of an arm follows one shape, loss(u) = final x g(u / T) / g(1) with g(x) = 1 + 1.5 e^(-6x)
// + 0.2 (1 - x)^2, on a WSD schedule (3 warmup updates, a linear decay over the last 60%), so a
// run's remaining gain at any fraction is the same share of its loss for every size, which the
// peers' curve ratios (fitting/curve_transfer.h) carry over exactly and Tissue et al.'s law only
// approximately.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "fitting/loss_curve_law.h"

namespace deepladder::fitting::testing {

inline double shapeOfRun(double x) {
  return 1.0 + 1.5 * std::exp(-6.0 * x) + 0.2 * (1.0 - x) * (1.0 - x);
}

inline std::vector<double> wsdRates(int64_t total, double peak) {
  std::vector<double> rates(static_cast<size_t>(total));
  const double decay_start = 0.4 * double(total);
  for (int64_t u = 0; u < total; ++u) {
    double r = peak;
    if (u < 3) r = peak * double(u + 1) / 3.0;
    if (double(u) >= decay_start)
      r = peak * std::max(0.0, (double(total) - double(u)) / (double(total) - decay_start));
    rates[static_cast<size_t>(u)] = r;
  }
  return rates;
}

// A finished run of `total` updates ending at `final_loss`: a train loss at every update
// (Gaussian noise of relative size `noise`), a validation loss at the end.
inline RunCurve shapeCurve(int64_t id, const std::string& group, int64_t total, double peak,
                           double final_loss, std::mt19937& rng, double noise = 0.002) {
  RunCurve run;
  run.run_id = id;
  run.name = group + "-" + std::to_string(id);
  run.group = group;
  run.rates = wsdRates(total, peak);
  std::normal_distribution<double> n(0.0, noise);
  for (int64_t u = 0; u < total; ++u) {
    const double loss = final_loss * shapeOfRun(double(u) / double(total)) / shapeOfRun(1.0);
    run.points.push_back({u, loss * (1.0 + n(rng)), 1.0, false});
  }
  run.points.push_back({total, final_loss, 32.0, true});
  run.final_loss = final_loss;
  return run;
}

}  // namespace deepladder::fitting::testing
