// The depth-sweep plot (see depth_plot.h).
#include "ui/plots/depth_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <limits>
#include <map>

#include "ui/plots/plot_style.h"

namespace deepladder::plots {

void drawDepthSweep(QCustomPlot& plot, const DepthPlotInput& input) {
  preparePlot(plot, input.title, QStringLiteral("executed depth (blocks)"),
              QStringLiteral("final validation loss (nats/token)"));
  setLog2Axis(*plot.xAxis);
  setLinearAxis(*plot.yAxis);

  // arm -> depth -> losses, arms in order of first appearance.
  std::vector<std::string> arms;
  std::map<std::string, std::map<double, std::vector<double>>> by_arm;
  double d_min = std::numeric_limits<double>::infinity(), d_max = 0;
  double l_min = std::numeric_limits<double>::infinity(), l_max = -l_min;
  for (const RunPoint& p : input.points) {
    if (!by_arm.count(p.arm)) arms.push_back(p.arm);
    by_arm[p.arm][p.depth].push_back(p.val_loss);
    d_min = std::min(d_min, p.depth);
    d_max = std::max(d_max, p.depth);
    l_min = std::min(l_min, p.val_loss);
    l_max = std::max(l_max, p.val_loss);
  }
  if (!(d_max > 0)) {
    plot.replot();
    return;
  }
  for (size_t i = 0; i < arms.size(); ++i) {
    const QColor color = seriesColor(static_cast<int>(i));
    QCPGraph* runs = plot.addGraph();
    runs->setLineStyle(QCPGraph::lsNone);
    runs->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 6));
    runs->removeFromLegend();
    QCPGraph* mean = plot.addGraph();
    mean->setPen(QPen(color, 2.0));
    mean->setName(QString::fromStdString(arms[i]));
    for (const auto& [depth, losses] : by_arm[arms[i]]) {
      double sum = 0;
      for (double loss : losses) {
        runs->addData(depth, loss);
        sum += loss;
      }
      mean->addData(depth, sum / static_cast<double>(losses.size()));
    }
  }
  plot.xAxis->setRange(d_min / 1.3, d_max * 1.3);
  const double pad = std::max(0.02, 0.08 * (l_max - l_min));
  plot.yAxis->setRange(l_min - pad, l_max + pad);
  placeLegendRight(plot);
  plot.replot();
}

}  // namespace deepladder::plots
