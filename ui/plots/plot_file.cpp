// Drawing a plot into a file (see plot_file.h).
#include "ui/plots/plot_file.h"

#include <qcustomplot.h>

#include "ui/plots/offscreen_app.h"
#include "ui/plots/plot_export.h"

namespace deepladder::plots {

void writePlotFile(const PlotDrawing& draw, const QString& path, int width, int height) {
  ensureGuiApplication();
  QCustomPlot plot;
  plot.resize(width, height);
  draw(plot);
  savePlot(plot, path, width, height);
}

}  // namespace deepladder::plots
