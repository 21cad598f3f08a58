// The form "pinned-e": L(C) = E + A (C/C0)^-gamma with E fixed for every arm (the baseline too)
// to a value the user gives with its source (--pin-e 1.6 --pin-e-source "..."), e.g. the
// irreducible loss a larger study measured; each arm is then the least-squares line of ln(L - E)
// on ln(C/C0) (the paper estimator's method for arms whose E is given). With E free, a short
// ladder trades E against A (marin#4447: A drifted from 45 to 71); pinned, only A and gamma move.
#include <cmath>

#include "core/errors.h"
#include "fitting/forms/builtin_forms.h"
#include "fitting/forms/power_law.h"
#include "fitting/frontier_solver.h"
#include "fitting/log_excess_line.h"
#include "fitting/table_format.h"

namespace deepladder::fitting {
namespace {

std::string number(double v) {
  return formatNumber(v, 6, nullptr);
}

class PinnedEForm : public PowerLawCurve {
 public:
  std::string name() const override { return "pinned-e"; }
  std::string formula(const FrontierOptions& o) const override {
    return "L(C) = " + number(o.pinned_E) + " + A (C/" + number(o.c_ref) + ")^-gamma";
  }
  std::string description(const FrontierOptions& o) const override {
    return "E pinned at " + number(o.pinned_E) + " (" + o.pinned_E_source +
           "); every arm by OLS of ln(L - E) on ln(C/C0)";
  }
  void checkOptions(const FrontierOptions& o) const override {
    if (!std::isfinite(o.pinned_E) || !(o.pinned_E >= 0))
      throw UserError("--form pinned-e: give the irreducible loss with --pin-e VALUE (>= 0)");
    if (o.pinned_E_source.empty())
      throw UserError(
          "--pin-e: say where the value comes from with --pin-e-source \"...\" (a paper, a "
          "larger ladder); it is printed beside every result that rests on it");
    if (o.joint) throw UserError("--joint: with --pin-e no E is fitted; leave out --joint");
  }
  std::vector<ArmFit> solve(const std::vector<ArmData>& arms, const FrontierOptions& o,
                            bool) const override {
    std::vector<ArmFit> fits;
    for (const ArmData& arm : arms) {
      ArmFit f;
      f.arm = arm.name;
      f.E = o.pinned_E;
      f.E_free = false;
      f.n_points = static_cast<int>(arm.compute.size());
      const auto line = fitLogExcessLine(arm.compute, arm.loss, o.pinned_E, o.c_ref);
      if (!line) {
        f.no_fit = "arm " + arm.name +
                   ": no fit: a loss at or below the pinned E = " + number(o.pinned_E) + " (" +
                   o.pinned_E_source + "), so ln(L - E) is undefined; check --pin-e";
        fits.push_back(f);
        continue;
      }
      f.A = line->A, f.gamma = line->gamma;
      f.A_se = line->A_se, f.gamma_se = line->slope_se;
      f.dof = line->dof;
      double rss = 0;
      for (size_t i = 0; i < arm.compute.size(); ++i) {
        const double e = arm.loss[i] - frontierLoss(arm.compute[i], o.c_ref, f.E, f.A, f.gamma);
        rss += e * e;
      }
      f.rss = rss;
      f.rms = std::sqrt(rss / std::max<size_t>(1, arm.compute.size()));
      fits.push_back(f);
    }
    return fits;
  }
};

}  // namespace

std::unique_ptr<FitForm> makePinnedEForm() {
  return std::make_unique<PinnedEForm>();
}

}  // namespace deepladder::fitting
