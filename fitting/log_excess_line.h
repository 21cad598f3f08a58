// The paper estimator's fit of an arm whose E is shared: the ordinary least-squares line
// ln(L_i - E) = b0 + b1 x_i, x_i = ln(C_i / C0), with E fixed. gamma = -b1, A = exp(b0).
// Plain arithmetic (no Ceres): used for the point estimate and for every bootstrap resample.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace deepladder::fitting {

struct LogExcessLine {
  int n = 0;  // points
  double slope =
      0.0;  // b1 = Sxy / Sxx, Sxx = sum (x_i - xbar)^2, Sxy = sum (x_i - xbar)(y_i - ybar)
  double intercept = 0.0;  // b0 = ybar - b1 xbar
  double gamma = 0.0;      // -b1
  double A = 0.0;          // exp(b0)
  double slope_se =
      0.0;  // sqrt(s^2 / Sxx), s^2 = sum_i (y_i - b0 - b1 x_i)^2 / (n - 2); NaN for n = 2
  double intercept_se = 0;  // sqrt(s^2 (1/n + xbar^2 / Sxx)); NaN for n = 2
  double A_se = 0.0;        // exp(b0) * intercept_se (delta method)
  int dof = 0;              // n - 2
};

// Index of the first point with L_i <= E (ln(L_i - E) undefined), or nullopt when every point
// lies above E.
std::optional<size_t> firstPointAtOrBelow(const std::vector<double>& loss, double E);

// The line through (ln(C_i/C0), ln(L_i - E)); nullopt when a point lies at or below E, when
// there are fewer than two points, or when all computes are equal (no slope).
std::optional<LogExcessLine> fitLogExcessLine(const std::vector<double>& compute,
                                              const std::vector<double>& loss, double E,
                                              double c_ref);

}  // namespace deepladder::fitting
