// The power law's curve, L = E + A (C/C0)^-gamma, as a fit form's prediction, slope and closed-form
// multiplier (frontier_model.h): shared by the forms whose arms follow it ("frontier" fits E the
// paper's way, "pinned-e" takes it from the user), which add their name, description and fit.
#pragma once

#include <cmath>

#include "fitting/fit_form.h"
#include "fitting/frontier_model.h"

namespace deepladder::fitting {

class PowerLawCurve : public FitForm {
 public:
  double loss(double E, double A, double gamma, const std::vector<double>&,
              double x) const override {
    return E + A * std::exp(-gamma * x);
  }
  double slope(double, double A, double gamma, const std::vector<double>&,
               double x) const override {
    return -gamma * A * std::exp(-gamma * x);
  }
  double multiplier(const ArmFit& base, const ArmFit& arm, double compute,
                    double c_ref) const override {
    return projectedMultiplier(compute, c_ref, base.A, base.gamma, arm.A, arm.gamma);
  }
  double multiplier(const FrontierDraw& base, const FrontierDraw& arm, double compute,
                    double c_ref) const override {
    return projectedMultiplier(compute, c_ref, base.A, base.gamma, arm.A, arm.gamma);
  }
  double perDecade(const ArmFit& base, const ArmFit& arm, double, double) const override {
    return multiplierPerDecade(base.gamma, arm.gamma);
  }
};

}  // namespace deepladder::fitting
