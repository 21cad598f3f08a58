// The Ceres cost function of one arm's frontier fit: every point of the arm in one residual block,
// with the Huber loss folded in (fitting/frontier_solver.cpp solves with it).
#pragma once

#include <ceres/ceres.h>

#include <vector>

namespace deepladder::fitting {

// One arm's residuals in one block (far less Ceres overhead than a block per point):
// r_i = E + A exp(-gamma x_i) - L_i, x_i = ln(C_i/C0), analytic Jacobian. With a Huber delta the
// block returns rt_i = sign(r_i) sqrt(rho(r_i^2)), rho = Ceres' HuberLoss (s for s <= delta^2,
// 2 delta sqrt(s) - delta^2 beyond), so 0.5 sum rt_i^2 is exactly Ceres' Huber objective
// 0.5 sum rho(r_i^2) and the per-point robust loss survives the single block.
class ArmResiduals : public ceres::CostFunction {
 public:
  // `x` and `y` must outlive the cost function (it keeps references).
  ArmResiduals(const std::vector<double>& x, const std::vector<double>& y, double huber_delta)
      : x_(x), y_(y), delta_(huber_delta) {
    set_num_residuals(static_cast<int>(x.size()));
    mutable_parameter_block_sizes()->assign({1, 1, 1});  // E, A, gamma
  }
  bool Evaluate(double const* const* p, double* r, double** J) const override;

 private:
  const std::vector<double>& x_;
  const std::vector<double>& y_;
  double delta_;
};

}  // namespace deepladder::fitting
