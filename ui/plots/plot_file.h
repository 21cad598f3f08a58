// Any plot ui/plots draws, written straight to a file off screen (`deepladder plot`): the caller
// hands over a drawing (plot_registry.h: a function that draws the plot's data, say
// `[in](QCustomPlot& p) { drawLens(p, in); }`); this builds the QCustomPlot, draws it and saves
// it (plot_export.h picks the format by extension), so callers outside ui/ never touch
// QCustomPlot.
#pragma once

#include <QString>

#include "ui/plots/plot_registry.h"

namespace deepladder::plots {

// Starts an off-screen application if none runs, draws `draw` at width x height and writes
// `path` (.png, .svg or .pdf). Throws UserError for an unknown extension or an unwritable file.
void writePlotFile(const PlotDrawing& draw, const QString& path, int width = 960, int height = 600);

}  // namespace deepladder::plots
