// The compute-optimal frontier L(C) = E + A (C/C0)^-gamma and the compute multiplier it implies.
// Header-only formulas shared by the fit, the bootstrap, the exports and the plots.
//
// Multiplier definition: how many times more compute the baseline needs to reach the
// loss an arm reaches. We index it by the BASELINE's compute C, as the measured multipliers are
// (one per baseline rung): the baseline reaches L_b(C) = E + A_b x^-g_b, x = C/C0, and the arm
// reaches the same loss at C_a = C0 (A_a / (A_b x^-g_b))^(1/g_a); M(C) = C / C_a. Then
//   log10 M(C) = (1 - g_b/g_a) log10 x + (log10 A_b - log10 A_a) / g_a,
// so log10 M grows by exactly (1 - g_b/g_a) per decade of baseline compute.
// (Indexed by the arm's compute instead, the slope would be g_a/g_b - 1: equal to first order in
// g_a - g_b, e.g. 0.0513 vs 0.0541 for gammas 0.111 vs 0.117.)
#pragma once

#include <cmath>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

// L(C) = E + A (C/C0)^-gamma
inline double frontierLoss(double compute, double c_ref, double E, double A, double gamma) {
  return E + A * std::pow(compute / c_ref, -gamma);
}

// M(C) = C / C_a with L_arm(C_a) = L_base(C); NaN when the arm's fit cannot reach that loss
// (A or gamma not positive).
inline double projectedMultiplier(double compute, double c_ref, double A_base, double gamma_base,
                                  double A_arm, double gamma_arm) {
  if (!(A_base > 0.0) || !(A_arm > 0.0) || !(gamma_arm > 0.0) || !(gamma_base >= 0.0)) return kNaN;
  const double log_x = std::log(compute / c_ref);
  const double log_ca_over_c0 =
      (std::log(A_arm) - std::log(A_base) + gamma_base * log_x) / gamma_arm;
  return std::exp(log_x - log_ca_over_c0);
}

// M(10 C) / M(C) = 10^(1 - g_b/g_a): the per-decade growth factor of the multiplier.
inline double multiplierPerDecade(double gamma_base, double gamma_arm) {
  if (!(gamma_arm > 0.0) || !(gamma_base >= 0.0)) return kNaN;
  return std::pow(10.0, 1.0 - gamma_base / gamma_arm);
}

}  // namespace deepladder::fitting
