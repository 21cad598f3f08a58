// One frontier fit of every arm on one data set (no bootstrap): the robust start grid, Ceres
// least squares with bounds, the Huber refit and, on request, standard errors from Ceres'
// covariance. Used by fitFrontier for the point estimate and for each bootstrap resample.
// Internal to fitting/ (the header has no Ceres types; the .cpp is where Ceres lives).
#pragma once

#include <string>
#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

struct ArmData {
  std::string name;
  std::vector<double> compute;  // C_i
  std::vector<double> loss;     // L_i
};

// arms[0] is the baseline: E, A, gamma free. Other arms: A, gamma with E fixed to the
// baseline's, or with `joint` one E shared by all arms and fitted with them.
// Fills every ArmFit field except the bootstrap intervals.
std::vector<ArmFit> solveFrontier(const std::vector<ArmData>& arms, double c_ref, bool joint,
                                  bool with_standard_errors);

}  // namespace deepladder::fitting
