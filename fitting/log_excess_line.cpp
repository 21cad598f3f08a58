// Least-squares line of ln(L - E) on ln(C/C0) (see log_excess_line.h). Centred sums, so the
// slope keeps its digits when ln(C/C0) is far from 0.
#include "fitting/log_excess_line.h"

#include <cmath>
#include <limits>

namespace deepladder::fitting {

std::optional<size_t> firstPointAtOrBelow(const std::vector<double>& loss, double E) {
  for (size_t i = 0; i < loss.size(); ++i)
    if (!(loss[i] > E)) return i;
  return std::nullopt;
}

std::optional<LogExcessLine> fitLogExcessLine(const std::vector<double>& compute,
                                              const std::vector<double>& loss, double E,
                                              double c_ref) {
  const size_t n = compute.size();
  if (n < 2 || loss.size() != n || firstPointAtOrBelow(loss, E)) return std::nullopt;
  std::vector<double> x(n), y(n);
  double xbar = 0, ybar = 0;
  for (size_t i = 0; i < n; ++i) {
    x[i] = std::log(compute[i] / c_ref);
    y[i] = std::log(loss[i] - E);
    xbar += x[i] / n;
    ybar += y[i] / n;
  }
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += (x[i] - xbar) * (x[i] - xbar);
    sxy += (x[i] - xbar) * (y[i] - ybar);
  }
  if (!(sxx > 0)) return std::nullopt;

  LogExcessLine line;
  line.n = static_cast<int>(n);
  line.dof = line.n - 2;
  line.slope = sxy / sxx;
  line.intercept = ybar - line.slope * xbar;
  line.gamma = -line.slope;
  line.A = std::exp(line.intercept);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  line.slope_se = line.intercept_se = line.A_se = nan;
  if (line.dof > 0) {
    double ssr = 0;
    for (size_t i = 0; i < n; ++i) {
      const double r = y[i] - line.intercept - line.slope * x[i];
      ssr += r * r;
    }
    const double s2 = ssr / line.dof;
    line.slope_se = std::sqrt(s2 / sxx);
    line.intercept_se = std::sqrt(s2 * (1.0 / n + xbar * xbar / sxx));
    line.A_se = line.A * line.intercept_se;
  }
  return line;
}

}  // namespace deepladder::fitting
