// Student's t distribution for the OLS intervals: the regularized incomplete beta function, the
// t CDF and its quantile. Plain double arithmetic (std::lgamma), no library beyond <cmath>;
// tested against scipy.special.betainc and scipy.stats.t (Debian's python3-scipy 1.10).
#pragma once

namespace deepladder::fitting {

// I_x(a, b) = B(x; a, b) / B(a, b) for a, b > 0 and 0 <= x <= 1 (NaN outside), by the continued
// fraction of the incomplete beta (modified Lentz), on whichever of x, 1 - x converges faster.
double regularizedIncompleteBeta(double a, double b, double x);

// P(T <= t) for T ~ Student t with `dof` > 0 degrees of freedom:
// 1 - I_{dof/(dof+t^2)}(dof/2, 1/2) / 2 for t >= 0, and by symmetry for t < 0. NaN for dof <= 0.
double studentTCdf(double t, double dof);

// The t with studentTCdf(t, dof) = p, 0 < p < 1 (NaN otherwise): bracketed by doubling, then
// bisection to the last representable digit (about 60 steps; cheap next to any fit).
double studentTQuantile(double p, double dof);

}  // namespace deepladder::fitting
