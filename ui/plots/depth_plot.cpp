// The depth-sweep plot (see depth_plot.h).
#include "ui/plots/depth_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "core/architecture.h"
#include "core/errors.h"
#include "core/run_config.h"
#include "core/run_status.h"
#include "storage/database.h"
#include "ui/plots/plot_style.h"

namespace deepladder::plots {

std::vector<DepthPoint> depthPointsFromDatabase(storage::Database& db, const std::string& db_label,
                                                const std::string& ladder) {
  const auto id = db.findLadder(ladder);
  if (!id)
    throw UserError("no ladder named \"" + ladder + "\" in " + db_label +
                    ". See `deepladder status --db " + db_label + "`");
  std::vector<DepthPoint> points;
  for (const auto& summary : db.listRuns(*id)) {
    const storage::RunRecord& r = summary.run;
    if (r.status != RunStatus::kFinished || !r.final_loss) continue;
    const RunConfig config = runConfigFromJson(nlohmann::json::parse(r.config_json));
    const int64_t depth = architectureShape(config.model).after.executed_blocks;
    points.push_back({r.arm, static_cast<double>(depth), *r.final_loss});
  }
  if (points.empty())
    throw UserError("ladder \"" + ladder + "\" in " + db_label +
                    " has no finished runs with a final loss yet. Run it first");
  return points;
}

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
  for (const DepthPoint& p : input.points) {
    if (!by_arm.count(p.arm)) arms.push_back(p.arm);
    by_arm[p.arm][p.depth].push_back(p.loss);
    d_min = std::min(d_min, p.depth);
    d_max = std::max(d_max, p.depth);
    l_min = std::min(l_min, p.loss);
    l_max = std::max(l_max, p.loss);
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
