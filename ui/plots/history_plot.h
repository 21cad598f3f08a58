// How a ladder's projection settled: for every arm, the projected multiplier at the target and
// its interval after each finished run, against the compute the ladder had spent by then
// (fitting/projection_history.h). One line with its band per arm; the target in the title.
#pragma once

#include <QString>
#include <vector>

#include "fitting/live_projection.h"

class QCustomPlot;

namespace deepladder::plots {

struct HistoryPlotInput {
  std::vector<fitting::ProjectionSnapshot> history;  // in the order the runs ended
  QString title;
};

void drawHistory(QCustomPlot& plot, const HistoryPlotInput& input);

}  // namespace deepladder::plots
