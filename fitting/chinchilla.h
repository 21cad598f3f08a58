// Chinchilla fits of L(N, D) = E + A / N^alpha + B / D^beta (Hoffmann et al. 2022).
// Approach 3 as in the literature: log L predicted as LSE(a - alpha ln N, b - beta ln D, e),
// Huber loss (delta 1e-3) on log-loss residuals summed over points, L-BFGS (Ceres) from every
// start of the grid alpha, beta in {0, 0.5, ..., 2}, e in {-1, -0.5, ..., 1},
// a, b in {0, 5, ..., 25} (4,500 starts); the best converged result is kept.
// Approach 1: lower envelope of loss vs FLOPs. Approach 2: IsoFLOP parabolas in ln N.
#pragma once

#include <array>
#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

struct ChinchillaOptions {
  double huber_delta = 1e-3;  // Huber threshold on ln-loss residuals
  int threads = 2;            // starts are split over this many threads
  // Starts to solve from instead of the 4,500-point grid (a bootstrap replicate starts from the
  // point fit); empty: the grid.
  std::vector<std::array<double, 5>> starts;  // a, b, e, alpha, beta
};

inline ChinchillaOptions defaultChinchillaOptions() {
  return ChinchillaOptions{};
}

// Parameter vector of the objective, in this order.
struct LseParams {
  double a = 0, b = 0, e = 0, alpha = 0, beta = 0;
};

// The 4,500 grid starts, in the order alpha, beta, e, a, b (b fastest).
std::vector<LseParams> chinchillaStartGrid();

// sum_i Huber_delta(LSE(a - alpha ln N_i, b - beta ln D_i, e) - ln L_i); gradient optional
// (same order as LseParams: a, b, e, alpha, beta).
double chinchillaObjective(const std::vector<SizePoint>& points, const LseParams& p, double delta,
                           std::array<double, 5>* gradient = nullptr);

// Throws UserError when there are fewer than 5 points, or a value is non-positive/non-finite.
ChinchillaFit fitChinchillaApproach3(const std::vector<SizePoint>& points,
                                     const ChinchillaOptions& options = defaultChinchillaOptions());

// Approach 1: points whose loss is below that of every cheaper point; ln N and ln D regressed on
// ln C over them. Needs params and tokens; C = compute_flops.
Approach1Result fitChinchillaApproach1(const std::vector<SizePoint>& points);

// Approach 2: points grouped by compute budget (within 5% of each other in C), a parabola in
// ln N per budget with >= 3 distinct sizes, then ln N_opt and ln D_opt regressed on ln C.
// UserError when fewer than 2 budgets qualify.
Approach2Result fitChinchillaApproach2(const std::vector<SizePoint>& points);

}  // namespace deepladder::fitting
