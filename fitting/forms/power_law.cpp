// The form "frontier": today's law L(C) = E + A (C/C0)^-gamma, E shared with the baseline (or
// fitted jointly), by the estimator --estimator names (frontier_estimator.h, frontier_solver.h).
// The multiplier and its growth per decade have closed forms (frontier_model.h).
#include "fitting/forms/power_law.h"

#include <cmath>

#include "fitting/forms/builtin_forms.h"
#include "fitting/frontier_estimator.h"
#include "fitting/frontier_solver.h"

namespace deepladder::fitting {
namespace {

class PowerLawForm : public PowerLawCurve {
 public:
  std::string name() const override { return "frontier"; }
  std::string formula(const FrontierOptions& o) const override {
    char c0[32];
    std::snprintf(c0, sizeof c0, "%g", o.c_ref);
    return std::string("L(C) = E + A (C/") + c0 + ")^-gamma";
  }
  std::string description(const FrontierOptions& o) const override {
    return estimatorDescription(o.estimator, o.joint);
  }
  std::vector<ArmFit> solve(const std::vector<ArmData>& arms, const FrontierOptions& o,
                            bool point) const override {
    return solveFrontier(arms, o.c_ref, o.joint, point, o.estimator, o.cancellation);
  }
};

}  // namespace

std::unique_ptr<FitForm> makePowerLawForm() {
  return std::make_unique<PowerLawForm>();
}

}  // namespace deepladder::fitting
