// The depth-sweep plot: final validation loss against executed depth (blocks) at fixed width,
// one line per arm through the mean over seeds at each depth, every run as a point; depth on a
// log2 axis. Points are plain rows (storage/depth_points.h reads a ladder's).
#pragma once

#include <QString>
#include <string>
#include <vector>

#include "core/results_table.h"

class QCustomPlot;

namespace deepladder::plots {

struct DepthPlotInput {
  // One a run: arm, depth (executed blocks of the final model), val_loss (final loss).
  std::vector<RunPoint> points;
  QString title;  // "" = none
};

void drawDepthSweep(QCustomPlot& plot, const DepthPlotInput& input);

}  // namespace deepladder::plots
