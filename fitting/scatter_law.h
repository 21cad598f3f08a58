// The law drawn over a scatter of runs (core/scatter_spec.h), one per group. By default a power
// law y = a x^b: the least-squares line of ln y on ln x, fitted by fitLogExcessLine (the paper
// estimator's line, log_excess_line.h) with E = 0 and C0 = 1, so a = exp(intercept), b = slope.
// Where the ladder's law applies (x = training FLOPs, y = the final value of a loss), the frontier
// fit itself (fitFrontier, frontier_fit.h, no bootstrap): L(C) = E + A (C/C0)^-gamma per group,
// E shared with the baseline group, exactly as `deepladder fit` fits the same points.
#pragma once

#include <string>
#include <vector>

#include "core/scatter_spec.h"
#include "fitting/fit_types.h"

namespace deepladder::fitting {

enum class ScatterLawForm {
  kPowerLaw,  // y = a x^b
  kFrontier,  // y = E + A (x / c_ref)^-gamma
};

struct ScatterLaw {
  std::string group;
  ScatterLawForm form = ScatterLawForm::kPowerLaw;
  double a = kNaN, b = kNaN;                // power law: exp(b0), b1 of ln y = b0 + b1 ln x
  double E = kNaN, A = kNaN, gamma = kNaN;  // frontier (ArmFit's fields)
  double c_ref = 1e18;                      // frontier: C0
  int n_points = 0;                         // points of the group
  std::string no_fit;                       // why there is no law ("" when fitted)
  bool fitted() const { return no_fit.empty(); }
  double predict(double x) const;  // NaN without a fit
  std::string formula() const;     // "y = 3.2 x^-0.071", "L = 1.80 + 1.20 (C/1e18)^-0.111"
};

struct ScatterFit {
  std::vector<ScatterLaw> laws;  // one per group, in the groups' order
  std::string note;              // what was fitted, and any fallback ("frontier fit failed: ...")
};

// Whether the ladder's frontier law is the one to draw: x is training FLOPs, the statistic is the
// final value and the metric is a loss ("val/loss", "train/loss", ...).
bool frontierLawApplies(const ScatterSpec& spec);

// The laws of `groups` over `points` (ScatterPoint::group names each point's group). options:
// the frontier fit's (baseline: kept when it names a group, else the first group; bootstrap
// forced to 0: the scatter draws the point fit). A frontier fit that fails (too few rungs) falls
// back to the power law per group, and the note says why.
ScatterFit fitScatterLaws(const std::vector<ScatterPoint>& points,
                          const std::vector<std::string>& groups, const ScatterSpec& spec,
                          FrontierOptions options = defaultFrontierOptions());

}  // namespace deepladder::fitting
