// How a ladder's projection settled: for every arm, the projected multiplier at the target and
// its interval after each finished run, against the compute the ladder had spent by then
// (fitting/projection_history.h). One line with its band per arm; the target in the title. The
// y axis follows what it shows: the multipliers and their intervals, each bound clipped to
// kIntervalClip times beyond the range of the multipliers (and 1x), with a note in the plot
// saying so (the legend keeps the unclipped interval of each arm's newest point). The constant
// is plot_style.h's, shared with the multiplier plot.
#pragma once

#include <QString>
#include <vector>

#include "fitting/live_projection.h"
#include "ui/plots/plot_style.h"

class QCustomPlot;

namespace deepladder::plots {

struct HistoryPlotInput {
  std::vector<fitting::ProjectionSnapshot> history;  // in the order the runs ended
  QString title;
};

void drawHistory(QCustomPlot& plot, const HistoryPlotInput& input);

}  // namespace deepladder::plots
