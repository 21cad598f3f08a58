// Names and descriptions of the frontier estimators (see frontier_estimator.h).
#include "fitting/frontier_estimator.h"

#include "core/errors.h"

namespace deepladder::fitting {

std::string estimatorName(FrontierEstimator estimator) {
  return estimator == FrontierEstimator::Paper ? "paper" : "robust";
}

FrontierEstimator parseEstimator(const std::string& name) {
  if (name == "paper") return FrontierEstimator::Paper;
  if (name == "robust") return FrontierEstimator::Robust;
  throw UserError("--estimator: '" + name +
                  "' is not an estimator. Choose paper (the growth paper's: baseline Huber fit "
                  "with E free, other arms OLS of ln(L - E) on ln(C/C0)) or robust (nonlinear "
                  "least squares + Huber refit for every arm)");
}

std::string estimatorDescription(FrontierEstimator estimator, bool joint) {
  if (estimator == FrontierEstimator::Paper)
    return "paper (baseline: Huber fit, E free; other arms: OLS of ln(L - E) on ln(C/C0), "
           "E fixed)";
  return joint ? "robust (all arms: nonlinear least squares + Huber refit, one E fitted jointly)"
               : "robust (baseline: Huber fit, E free; other arms: nonlinear least squares + "
                 "Huber refit, E fixed)";
}

std::string estimatorLegend(FrontierEstimator estimator, bool joint) {
  if (estimator == FrontierEstimator::Paper)
    return "paper estimator: baseline Huber fit, E free; other arms OLS of ln(L - E)";
  return joint ? "robust estimator: NLS + Huber refit, one joint E"
               : "robust estimator: NLS + Huber refit, E shared";
}

std::string armFitMethod(FrontierEstimator estimator, bool joint, bool is_baseline) {
  if (estimator == FrontierEstimator::Paper)
    return is_baseline ? "huber_e_free" : "ols_log_excess_e_fixed";
  if (joint) return "nls_huber_joint_e";
  return is_baseline ? "huber_e_free" : "nls_huber_e_fixed";
}

}  // namespace deepladder::fitting
