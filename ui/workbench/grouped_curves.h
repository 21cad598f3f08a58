// Compare's grouped overlay: the loaded curves of single runs grouped by the options the user
// chose, each group's seeds collapsed to its mean curve with a band (core/run_grouping.h, where
// the numerics live). Smoothing is applied to each run's curve before the average, so a group's
// mean is the mean of what the ungrouped overlay draws.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/run_grouping.h"
#include "ui/plots/curves_plot.h"

namespace deepladder::ui {

struct CurveGrouping {
  std::vector<std::string> by;  // option names (storage/run_option_rows.h); empty = no grouping
  SeedBand band = SeedBand::kMinMax;
  double ema = 0.0;       // smoothing weight of each run's curve (as CurvesPlotInput::ema)
  bool log_grid = false;  // the common grid spaced geometrically (a log x axis)
  // A point every 5 pixels of a 1,000-pixel plot: smooth lines, and band fills QCustomPlot paints
  // quickly (25 groups' bands at 400 points cost twice as much to draw).
  int grid_points = 200;
};

// One series per group (label "arm=vanilla, lr_mult=0.5 (3 runs)", y the mean, band_lo/band_hi
// the band, runs the curves averaged), in groupRuns' order; x on the axis of `runs`. The result
// carries no smoothing of its own (ema 0). rows: each run's option values by run id.
plots::CurvesPlotInput groupCurves(const plots::CurvesPlotInput& runs,
                                   const std::map<int64_t, OptionValues>& rows,
                                   const CurveGrouping& grouping);

}  // namespace deepladder::ui
