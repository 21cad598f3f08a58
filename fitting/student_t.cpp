// Student's t distribution (see student_t.h).
#include "fitting/student_t.h"

#include <cmath>
#include <limits>

#include "fitting/fit_types.h"

namespace deepladder::fitting {
namespace {

// The continued fraction of I_x(a, b) (the factor after x^a (1-x)^b / (a B(a, b))), evaluated by
// the modified Lentz method. Its terms: d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)),
// d_{2m} = m (b-m) x / ((a+2m-1)(a+2m)). Converges quickly for x < (a+1)/(a+b+2).
double incompleteBetaFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-16;
  auto guard = [](double v) { return std::fabs(v) < kTiny ? kTiny : v; };
  double c = 1.0;
  double d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
  double f = d;
  for (int m = 1; m <= 10000; ++m) {
    const double even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
    d = 1.0 / guard(1.0 + even * d);
    c = guard(1.0 + even / c);
    f *= d * c;
    const double odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
    d = 1.0 / guard(1.0 + odd * d);
    c = guard(1.0 + odd / c);
    const double step = d * c;
    f *= step;
    if (std::fabs(step - 1.0) < kEpsilon) break;
  }
  return f;
}

// P(T > t) for t >= 0: I_{dof/(dof+t^2)}(dof/2, 1/2) / 2.
double upperTail(double t, double dof) {
  return 0.5 * regularizedIncompleteBeta(0.5 * dof, 0.5, dof / (dof + t * t));
}

}  // namespace

double regularizedIncompleteBeta(double a, double b, double x) {
  if (!(a > 0.0) || !(b > 0.0) || !(x >= 0.0 && x <= 1.0)) return kNaN;
  if (x == 0.0 || x == 1.0) return x;
  // ln of x^a (1-x)^b / B(a, b)
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0))
    return std::exp(log_front) * incompleteBetaFraction(a, b, x) / a;
  // I_x(a, b) = 1 - I_{1-x}(b, a)
  return 1.0 - std::exp(log_front) * incompleteBetaFraction(b, a, 1.0 - x) / b;
}

double studentTCdf(double t, double dof) {
  if (!(dof > 0.0) || std::isnan(t)) return kNaN;
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  const double tail = upperTail(std::fabs(t), dof);
  return t >= 0 ? 1.0 - tail : tail;
}

double studentTQuantile(double p, double dof) {
  if (!(dof > 0.0) || !(p > 0.0 && p < 1.0)) return kNaN;
  if (p == 0.5) return 0.0;
  // Solve P(T > t) = tail for t > 0 in the tail itself (no 1 - p cancellation near the ends).
  const double tail = p > 0.5 ? 1.0 - p : p;
  double lo = 0.0, hi = 1.0;
  while (upperTail(hi, dof) > tail) {
    lo = hi;
    hi *= 2.0;
    if (!std::isfinite(hi)) return p > 0.5 ? hi : -hi;
  }
  for (int step = 0; step < 2000; ++step) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;  // lo and hi are adjacent doubles
    (upperTail(mid, dof) > tail ? lo : hi) = mid;
  }
  const double t = 0.5 * (lo + hi);
  return p > 0.5 ? t : -t;
}

}  // namespace deepladder::fitting
