// A fit form: one law L(C) a ladder's arms can be fitted with, behind one interface (statsmodels
// style): its name and formula, its parameters (E, A, gamma and any of its own), the fit of every
// arm on one data set (the point fit and each bootstrap replicate go through it), its prediction
// L(C) and the slope dL/d ln C (which turns a loss error into a compute error for the multiplier).
// The bootstrap, the multipliers, the prediction intervals, the backtests, the tables, the JSON and
// the plots read a fit only through this interface, so a new form is one file under
// fitting/forms/ plus one registration line in fitting/fit_forms.cpp (or registerFitForm at run
// time, as a test does).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

struct ArmData;  // fitting/frontier_solver.h

class FitForm {
 public:
  virtual ~FitForm() = default;

  // The name --form takes and the JSON prints ("frontier", "curved", "pinned-e").
  virtual std::string name() const = 0;
  // The law, e.g. "L(C) = E + A (C/1e18)^-gamma".
  virtual std::string formula(const FrontierOptions& options) const = 0;
  // One line on how the arms are fitted (a table header, a plot legend).
  virtual std::string description(const FrontierOptions& options) const = 0;
  // Parameters beyond E, A and gamma, in the order of ArmFit::extra and FrontierDraw::extra.
  virtual std::vector<std::string> extraParameters() const { return {}; }
  // UserError when the options do not suit the form (e.g. pinned-e without --pin-e).
  virtual void checkOptions(const FrontierOptions& options) const {}

  // Every arm fitted on one data set (arms[0] the baseline). Fills E, A, gamma, extra, E_free,
  // the standard errors when `point`, n_points, dof, rss, rms, no_fit and at_bound; leaves the
  // bootstrap and t intervals and `method` to the caller. Throws on a data set it cannot fit
  // (a bootstrap replicate is then dropped).
  virtual std::vector<ArmFit> solve(const std::vector<ArmData>& arms,
                                    const FrontierOptions& options, bool point) const = 0;

  // L at x = ln(C / C0) for one arm's parameters.
  virtual double loss(double E, double A, double gamma, const std::vector<double>& extra,
                      double x) const = 0;
  // dL/dx at x = ln(C / C0).
  virtual double slope(double E, double A, double gamma, const std::vector<double>& extra,
                       double x) const = 0;

  // M(C) = C / C_a with L_arm(C_a) = L_base(C); NaN when the arm cannot reach that loss. By
  // bisection in ln C over 60 decades either side; a form with a closed form overrides it.
  virtual double multiplier(const ArmFit& base, const ArmFit& arm, double compute,
                            double c_ref) const;
  virtual double multiplier(const FrontierDraw& base, const FrontierDraw& arm, double compute,
                            double c_ref) const;
  // M(10 C) / M(C) at `compute` (for the power law the same at every C: 10^(1 - g_b/g_a)).
  virtual double perDecade(const ArmFit& base, const ArmFit& arm, double compute,
                           double c_ref) const;

  // Free parameters of an arm's fit (E counted where the arm fits its own).
  int parameters(const ArmFit& arm) const {
    return (arm.E_free ? 1 : 0) + 2 + static_cast<int>(extraParameters().size());
  }
};

// One arm's L(C) and dL/d ln C through its form.
double formLoss(const FitForm& form, const ArmFit& arm, double compute, double c_ref);
double formLoss(const FitForm& form, const FrontierDraw& draw, double compute, double c_ref);
double formSlope(const FitForm& form, const ArmFit& arm, double compute, double c_ref);

}  // namespace deepladder::fitting
