// Does an arm accept the baseline's E? Under the paper's estimator every arm is fitted with the
// baseline's irreducible loss E; when that E is wrong for an arm, ln(L - E) against ln C bends for
// that arm, which a curvature test reads as "the law bends". This check names the cause instead:
// the arm's rungs refitted with its own E (profiled over E, the line of ln(L - E) on ln(C/C0) at
// each E, residuals measured in loss) against the fit with the shared E, by an F test with 1 and
// n - 3 degrees of freedom.
#pragma once

#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

struct SharedECheck {
  int rungs = 0;             // n: the arm's rungs (mean loss per compute)
  double shared_E = kNaN;    // the baseline's E
  double own_E = kNaN;       // the E that fits the arm's rungs best (profile)
  double rss_shared = kNaN;  // sum_i (L_i - Lhat_i)^2 with the shared E
  double rss_own = kNaN;     // the same with the arm's own E
  double F = kNaN;           // (rss_shared - rss_own) / (rss_own / (n - 3))
  double p_value = kNaN;     // P(F(1, n - 3) >= F)
};

// NaN fields when the arm has fewer than 4 rungs or a rung at or below the shared E.
SharedECheck checkSharedE(const std::vector<double>& compute, const std::vector<double>& loss,
                          double shared_E, double c_ref);

}  // namespace deepladder::fitting
