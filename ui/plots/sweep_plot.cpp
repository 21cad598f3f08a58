// The sweep plot (see sweep_plot.h).
#include "ui/plots/sweep_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "core/ladder/sweep.h"
#include "ui/plots/plot_style.h"

namespace deepladder::plots {
namespace {

// A label's first axis as (key, number); NaN when it is not a number.
std::pair<std::string, double> firstAxis(const std::string& label) {
  const auto parsed = ladder::parseSweepLabel(label);
  if (parsed.empty()) return {"", NAN};
  return {parsed[0].first, ladder::sweepValueNumber(parsed[0].second)};
}

// The label's further axes ("beta20.95"), which make a line of their own.
std::string restOfLabel(const std::string& label) {
  const auto parsed = ladder::parseSweepLabel(label);
  std::string rest;
  for (size_t i = 1; i < parsed.size(); ++i)
    rest += (rest.empty() ? "" : "-") + parsed[i].first + parsed[i].second;
  return rest;
}

}  // namespace

std::vector<std::string> sweepPlotArms(const std::vector<fitting::SweepRungChoice>& rungs) {
  std::vector<std::string> arms;
  for (const auto& r : rungs)
    if (std::find(arms.begin(), arms.end(), r.arm) == arms.end()) arms.push_back(r.arm);
  return arms;
}

void drawSweep(QCustomPlot& plot, const SweepPlotInput& input) {
  const std::vector<std::string> arms = sweepPlotArms(input.rungs);
  const std::string arm = input.arm.empty() && !arms.empty() ? arms.front() : input.arm;
  std::string key;
  double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min;
  double y_min = x_min, y_max = -x_min;
  for (const auto& r : input.rungs)
    if (r.arm == arm)
      for (const auto& p : r.points) {
        const auto [k, x] = firstAxis(p.label);
        if (!std::isfinite(x) || !std::isfinite(p.mean_loss)) continue;
        key = k;
        x_min = std::min(x_min, x), x_max = std::max(x_max, x);
        y_min = std::min(y_min, p.mean_loss), y_max = std::max(y_max, p.mean_loss);
      }
  preparePlot(plot, input.title,
              key.empty() ? QStringLiteral("swept value") : QString::fromStdString(key),
              QStringLiteral("mean final validation loss (nats/token)"));
  setLinearAxis(*plot.yAxis);
  const bool log_x = x_min > 0 && x_max / x_min >= 4;
  if (log_x)
    setLog2Axis(*plot.xAxis);
  else
    setLinearAxis(*plot.xAxis);
  if (!std::isfinite(x_min)) {  // nothing numeric to draw for this arm
    plot.replot();
    return;
  }

  int line = 0;
  QCPGraph* edge_key = nullptr;     // the first edge ring: the one that has a legend line
  QCPGraph* optimum_key = nullptr;  // the first optimum marker: the one in the legend
  for (const auto& r : input.rungs) {
    if (r.arm != arm) continue;
    // One line per further-axes value, through the points sorted by the first axis's value.
    std::map<std::string, std::vector<std::pair<double, const fitting::SweepPointLoss*>>> lines;
    for (const auto& p : r.points) {
      const double x = firstAxis(p.label).second;
      if (std::isfinite(x) && std::isfinite(p.mean_loss))
        lines[restOfLabel(p.label)].push_back({x, &p});
    }
    for (auto& [rest, points] : lines) {
      std::sort(points.begin(), points.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      const QColor color = seriesColor(line++);
      // The rung's fitted optimum (one-axis sweeps only, so only for the line without rest).
      for (const auto& o : input.optima)
        if (rest.empty() && o.arm == r.arm && o.size == r.size && o.fitted &&
            std::isfinite(o.min_loss)) {
          QCPGraph* opt = plot.addGraph();
          opt->setLineStyle(QCPGraph::lsNone);
          opt->setScatterStyle(
              QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(color, 1.5), QBrush(color), 10));
          opt->addData(o.optimum, o.min_loss);
          if (std::isfinite(o.lo) && std::isfinite(o.hi)) {
            auto* bar = new QCPErrorBars(plot.xAxis, plot.yAxis);
            bar->setDataPlottable(opt);
            bar->setErrorType(QCPErrorBars::etKeyError);
            bar->setPen(QPen(color, 1.2));
            bar->addData(o.optimum - o.lo, o.hi - o.optimum);
            bar->removeFromLegend();
          }
          opt->setName(QStringLiteral("fitted optimum, 95% interval"));
          if (optimum_key)
            opt->removeFromLegend();
          else
            optimum_key = opt;
        }
      QCPGraph* g = plot.addGraph();
      g->setPen(QPen(color, 1.8));
      g->setScatterStyle(
          QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(color, 1.5), QBrush(Qt::white), 7));
      g->setName(QString::fromStdString(r.size + (rest.empty() ? "" : " " + rest)));
      for (const auto& [x, p] : points) {
        g->addData(x, p->mean_loss);
        if (p->label != r.chosen) continue;
        QCPGraph* best = plot.addGraph();
        best->setLineStyle(QCPGraph::lsNone);
        best->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 9));
        best->addData(x, p->mean_loss);
        best->removeFromLegend();
        if (!r.at_edge) continue;
        QCPGraph* ring = plot.addGraph();
        ring->setLineStyle(QCPGraph::lsNone);
        ring->setScatterStyle(QCPScatterStyle(
            QCPScatterStyle::ssCircle, QPen(QColor(200, 30, 30), 2.0), QBrush(Qt::NoBrush), 16));
        ring->addData(x, p->mean_loss);
        ring->setName(QStringLiteral("best at edge: extend the sweep"));
        if (edge_key)
          ring->removeFromLegend();
        else
          edge_key = ring;
      }
    }
  }
  for (QCPGraph* key : {edge_key, optimum_key})
    if (key) {  // their legend lines go below the sizes', not between them
      key->removeFromLegend();
      key->addToLegend();
    }
  if (log_x)
    plot.xAxis->setRange(x_min / 1.4, x_max * 1.4);
  else {
    const double pad = std::max(1e-9, 0.08 * (x_max - x_min));
    plot.xAxis->setRange(x_min - pad, x_max + pad);
  }
  const double pad = std::max(0.01, 0.08 * (y_max - y_min));
  plot.yAxis->setRange(y_min - pad, y_max + pad);
  placeLegendRight(plot);
  plot.replot();
}

}  // namespace deepladder::plots
