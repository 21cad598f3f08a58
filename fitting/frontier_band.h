// Bootstrap bands of the curves a frontier fit implies: for one arm, the fitted L(C) and, for a
// non-baseline arm, the projected multiplier M(C), each with its pointwise percentile band over
// the bootstrap replicates (FrontierResult::bootstrap_draws) at the fit's interval level. Both
// bands come from the same resamples as the parameter intervals, so a plot, a table and the
// CLI never disagree. Pure arithmetic on a finished fit: no Ceres, cheap enough for a redraw.
#pragma once

#include <cstddef>
#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

struct BandPoint {
  double compute = kNaN;  // C
  double value = kNaN;    // the curve from the point fit at C
  double lo = kNaN;       // bootstrap percentile (1-level)/2 of the curve at C; NaN: no bootstrap
  double hi = kNaN;       // bootstrap percentile (1+level)/2 of the curve at C
};

// `points` computes evenly spaced in log10 from `lo` to `hi` inclusive (empty on bad input).
std::vector<double> logSpacedComputes(double lo, double hi, int points);

// L(C) = E + A (C/C0)^-gamma of result.arms[arm_index] at each compute, with its band.
std::vector<BandPoint> frontierBand(const FrontierResult& result, size_t arm_index,
                                    const std::vector<double>& computes);

// M(C) of result.arms[arm_index] against the baseline (arms[0]) at each baseline compute, with
// its band (each replicate pairs the arm's fit with the baseline's fit of the same resample).
// Empty for the baseline itself.
std::vector<BandPoint> multiplierBand(const FrontierResult& result, size_t arm_index,
                                      const std::vector<double>& computes);

}  // namespace deepladder::fitting
