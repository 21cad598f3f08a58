// The compute multiplier of each arm against the baseline, indexed by the baseline's compute:
// measured points (one per baseline rung the arm brackets), the projected curve from the fits
// out to 1e26 FLOPs with its bootstrap band, the per-decade factor in the legend, the 1x line, and
// a legend line naming the estimator that made the fits. The band is clipped to kIntervalClip
// times beyond the multipliers shown (plot_style.h), with a note saying so.
#pragma once

#include <QString>

#include "fitting/fit_types.h"

class QCustomPlot;

namespace deepladder::plots {

// Computes for the projected band: `per_decade` points a decade from `lo` to `hi` (inclusive).
// Fit with options.at = multiplierBandComputes(...) so the band is smooth.
std::vector<double> multiplierBandComputes(double lo, double hi = fitting::kDefaultTarget,
                                           int per_decade = 4);

struct MultiplierPlotInput {
  fitting::FrontierResult result;
  double compute_hi = fitting::kDefaultTarget;  // right end of the projected curve
  QString title;
  double compute_lo = 0.0;  // left end (the smallest rung's compute); 0 = the first measured or
                            // projected compute
};

void drawMultiplier(QCustomPlot& plot, const MultiplierPlotInput& input);

}  // namespace deepladder::plots
