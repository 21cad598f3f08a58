// One frontier fit of every arm on one data set (no bootstrap): the start grid, Ceres least
// squares with bounds, the Huber refit and, on request, standard errors from Ceres' covariance;
// under the paper estimator the E-shared arms by the OLS line of ln(L - E) instead. Used by
// fitFrontier for the point estimate and for each bootstrap resample.
// Internal to fitting/ (the header has no Ceres types; the .cpp is where Ceres lives).
#pragma once

#include <string>
#include <vector>

#include "fitting/cancellation.h"
#include "fitting/fit_types.h"

namespace deepladder::fitting {

struct ArmData {
  std::string name;
  std::vector<double> compute;  // C_i
  std::vector<double> loss;     // L_i
};

// arms[0] is the baseline: E, A, gamma free, started, bounded and Huber-scaled as the estimator
// says (frontier_solver.cpp). Other arms, robust: A, gamma by least squares + Huber refit with E
// fixed to the baseline's, or with `joint` one E shared by all arms and fitted with them. Other
// arms, paper (`joint` must be false): the OLS line of ln(L - E) on ln(C/C0) with the baseline's
// E; an arm with a point at or below E gets NaN A and gamma and the flag "E>=arm min loss".
// Fills every ArmFit field except the bootstrap intervals, the t-intervals and `method`.
// Throws FitCancelled when `cancel` is cancelled before or while it solves (Ceres aborts).
std::vector<ArmFit> solveFrontier(const std::vector<ArmData>& arms, double c_ref, bool joint,
                                  bool with_standard_errors, FrontierEstimator estimator,
                                  const Cancellation* cancel = nullptr);

}  // namespace deepladder::fitting
