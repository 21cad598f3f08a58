// Drawing a plot's data into a file (see plot_file.h).
#include "ui/plots/plot_file.h"

#include <qcustomplot.h>

#include "ui/plots/offscreen_app.h"
#include "ui/plots/plot_export.h"

namespace deepladder::plots {
namespace {

struct Draw {
  QCustomPlot& plot;
  void operator()(const FrontierPlotInput& in) const { drawFrontier(plot, in); }
  void operator()(const MultiplierPlotInput& in) const { drawMultiplier(plot, in); }
  void operator()(const LensPlotInput& in) const { drawLens(plot, in); }
  void operator()(const CurvesPlotInput& in) const { drawCurves(plot, in); }
  void operator()(const SquaringPlotInput& in) const { drawSquaringLadder(plot, in); }
  void operator()(const DepthPlotInput& in) const { drawDepthSweep(plot, in); }
  void operator()(const BacktestPlotInput& in) const { drawBacktest(plot, in); }
  void operator()(const SweepPlotInput& in) const { drawSweep(plot, in); }
  void operator()(const ScatterPlotInput& in) const { drawScatter(plot, in); }
};

}  // namespace

void writePlotFile(const PlotInput& input, const QString& path, int width, int height) {
  ensureGuiApplication();
  QCustomPlot plot;
  plot.resize(width, height);
  std::visit(Draw{plot}, input);
  savePlot(plot, path, width, height);
}

}  // namespace deepladder::plots
