// Measured compute multipliers: at each baseline rung, the baseline's compute divided by the
// compute at which the arm reaches the same loss, interpolated linearly in log compute between
// the arm's two bracketing rungs. Rungs whose loss lies outside the arm's range are left out.
// Several runs at one compute (seeds) are averaged first.
#pragma once

#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

struct ComputeLoss {
  double compute = 0.0;  // C
  double loss = 0.0;     // L (mean over runs at this C)
};

// Mean loss per distinct compute, sorted by compute.
std::vector<ComputeLoss> rungsOf(const std::vector<RunPoint>& points);

// Multiplier at each baseline rung the arm brackets.
std::vector<MeasuredMultiplier> measuredMultipliers(const std::vector<ComputeLoss>& baseline,
                                                    const std::vector<ComputeLoss>& arm);

}  // namespace deepladder::fitting
