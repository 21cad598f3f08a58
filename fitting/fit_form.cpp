// The parts of a fit form every form shares (see fit_form.h): the multiplier by root finding.
#include "fitting/fit_form.h"

#include <cmath>

namespace deepladder::fitting {
namespace {

// ln(C_a / C0) where the arm's curve reaches `target`, by bisection over [x - 138, x + 138]
// (60 decades either side) on a curve that falls with x; NaN when it does not reach it there.
template <typename Curve>
double crossing(Curve curve, double target, double x) {
  double lo = x - 138.0, hi = x + 138.0;
  double f_lo = curve(lo) - target, f_hi = curve(hi) - target;
  if (!std::isfinite(f_lo) || !std::isfinite(f_hi) || !(f_lo > 0) || !(f_hi < 0)) return kNaN;
  for (int i = 0; i < 200 && hi - lo > 1e-13 * std::max(1.0, std::fabs(lo)); ++i) {
    const double mid = 0.5 * (lo + hi);
    const double f = curve(mid) - target;
    if (!std::isfinite(f)) return kNaN;
    (f > 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// M = C / C_a for any parameter holder with E, A, gamma and extra (ArmFit, FrontierDraw).
template <typename Params>
double multiplierByBisection(const FitForm& form, const Params& base, const Params& arm,
                             double compute, double c_ref) {
  const double x = std::log(compute / c_ref);
  const double target = form.loss(base.E, base.A, base.gamma, base.extra, x);
  const double xa = crossing(
      [&](double u) { return form.loss(arm.E, arm.A, arm.gamma, arm.extra, u); }, target, x);
  return std::exp(x - xa);
}

}  // namespace

double FitForm::multiplier(const ArmFit& base, const ArmFit& arm, double compute,
                           double c_ref) const {
  return multiplierByBisection(*this, base, arm, compute, c_ref);
}

double FitForm::multiplier(const FrontierDraw& base, const FrontierDraw& arm, double compute,
                           double c_ref) const {
  return multiplierByBisection(*this, base, arm, compute, c_ref);
}

double FitForm::perDecade(const ArmFit& base, const ArmFit& arm, double compute,
                          double c_ref) const {
  return multiplier(base, arm, 10 * compute, c_ref) / multiplier(base, arm, compute, c_ref);
}

double formLoss(const FitForm& form, const ArmFit& arm, double compute, double c_ref) {
  return form.loss(arm.E, arm.A, arm.gamma, arm.extra, std::log(compute / c_ref));
}

double formLoss(const FitForm& form, const FrontierDraw& draw, double compute, double c_ref) {
  return form.loss(draw.E, draw.A, draw.gamma, draw.extra, std::log(compute / c_ref));
}

double formSlope(const FitForm& form, const ArmFit& arm, double compute, double c_ref) {
  return form.slope(arm.E, arm.A, arm.gamma, arm.extra, std::log(compute / c_ref));
}

}  // namespace deepladder::fitting
