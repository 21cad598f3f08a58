// Any of the plots ui/plots draws, written straight to a file off screen (`deepladder plot`):
// the caller hands over a plot's data (one of the *PlotInput structs); this builds the
// QCustomPlot, draws it and saves it (plot_export.h picks the format by extension), so callers
// outside ui/ never touch QCustomPlot.
#pragma once

#include <QString>
#include <variant>

#include "ui/plots/backtest_plot.h"
#include "ui/plots/curves_plot.h"
#include "ui/plots/depth_plot.h"
#include "ui/plots/frontier_plot.h"
#include "ui/plots/lens_plot.h"
#include "ui/plots/multiplier_plot.h"
#include "ui/plots/scatter_plot.h"
#include "ui/plots/squaring_plot.h"
#include "ui/plots/sweep_plot.h"

namespace deepladder::plots {

using PlotInput = std::variant<FrontierPlotInput, MultiplierPlotInput, LensPlotInput,
                               CurvesPlotInput, SquaringPlotInput, DepthPlotInput,
                               BacktestPlotInput, SweepPlotInput, ScatterPlotInput>;

// Starts an off-screen application if none runs, draws `input` at width x height and writes
// `path` (.png, .svg or .pdf). Throws UserError for an unknown extension or an unwritable file.
void writePlotFile(const PlotInput& input, const QString& path, int width = 960, int height = 600);

}  // namespace deepladder::plots
