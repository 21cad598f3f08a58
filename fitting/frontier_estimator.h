// Which estimator fits the frontier L(C) = E + A (C/C0)^-gamma (--estimator), its name as the
// CLI, JSON and tables spell it, and the one-line description the tables and plots print.
//
// paper (the default): the growth paper's estimator. The baseline is fitted with E, A, gamma
//   free (grid start, bounded least squares, Huber refit, all in loss space, as in the paper's
//   code); every arm whose E is shared is the ordinary least-squares line of ln(L - E) on
//   ln(C/C0) with E fixed to the baseline's: gamma = -slope, A = exp(intercept), the slope's
//   standard error by the OLS formula and its Student-t interval (n - 2 dof).
// robust: every arm by bounded nonlinear least squares in loss space with a Huber refit (E
//   fixed to the baseline's, or one E fitted jointly with --joint).
#pragma once

#include <string>

namespace deepladder::fitting {

enum class FrontierEstimator { Paper, Robust };

// "paper" | "robust".
std::string estimatorName(FrontierEstimator estimator);

// "paper" | "robust"; anything else is a UserError naming the choices.
FrontierEstimator parseEstimator(const std::string& name);

// One line for a table header or a plot legend, e.g. "paper (baseline: Huber fit, E free;
// other arms: OLS of ln(L - E) on ln(C/C0), E fixed)".
std::string estimatorDescription(FrontierEstimator estimator, bool joint);

// Short form for a plot legend, e.g. "paper estimator: baseline Huber fit, E free; other arms
// OLS of ln(L - E)".
std::string estimatorLegend(FrontierEstimator estimator, bool joint);

// How one arm was fitted, for the JSON: "huber_e_free", "ols_log_excess_e_fixed",
// "nls_huber_e_fixed" or "nls_huber_joint_e".
std::string armFitMethod(FrontierEstimator estimator, bool joint, bool is_baseline);

}  // namespace deepladder::fitting
