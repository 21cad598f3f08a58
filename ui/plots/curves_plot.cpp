// Overlaid metric curves with per-pixel-column decimation (see curves_plot.h).
#include "ui/plots/curves_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.h"
#include "ui/plots/decimation.h"
#include "ui/plots/plot_style.h"

namespace deepladder::plots {
namespace {

// Full-resolution data kept on the plot object, keyed by graph.
struct CurveStore : QObject {
  struct Entry {
    QCPGraph* graph;
    std::shared_ptr<const std::vector<double>> x, y;
  };
  std::vector<Entry> entries;
  bool log_x = false;
};

CurveStore* storeOf(QCustomPlot& plot, bool create) {
  // CurveStore has no Q_OBJECT (no moc for an internal type): find it by its unique name.
  auto* store = static_cast<CurveStore*>(plot.findChild<QObject*>(
      QStringLiteral("deepladder_curve_store"), Qt::FindDirectChildrenOnly));
  if (!store && create) {
    store = new CurveStore;
    store->setObjectName(QStringLiteral("deepladder_curve_store"));
    store->setParent(&plot);
  }
  return store;
}

int plotColumns(QCustomPlot& plot) {
  const int w = plot.axisRect()->width();
  return std::max(200, w > 0 ? w : plot.width() > 0 ? plot.width() : 1000);
}

}  // namespace

CurveAxis curveAxisFromName(const std::string& name) {
  if (name == "step") return CurveAxis::kStep;
  if (name == "tokens") return CurveAxis::kTokens;
  if (name == "flops") return CurveAxis::kFlops;
  throw UserError("--x: '" + name + "' is not step, tokens or flops");
}

QString curveAxisLabel(CurveAxis axis) {
  switch (axis) {
    case CurveAxis::kStep:
      return QStringLiteral("step");
    case CurveAxis::kTokens:
      return QStringLiteral("tokens");
    case CurveAxis::kFlops:
      return QStringLiteral("training compute (FLOPs)");
  }
  return {};
}

void drawCurves(QCustomPlot& plot, const CurvesPlotInput& input) {
  preparePlot(plot, input.title, curveAxisLabel(input.axis), input.metric);
  if (input.log_x)
    setLogAxis(*plot.xAxis);
  else
    setLinearAxis(*plot.xAxis);
  if (input.log_y) {
    setLogAxis(*plot.yAxis);
    plot.yAxis->setNumberFormat("gb");
    plot.yAxis->setNumberPrecision(3);
  } else {
    setLinearAxis(*plot.yAxis);
  }
  CurveStore* store = storeOf(plot, true);
  store->entries.clear();
  store->log_x = input.log_x;

  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo;
  double y_lo = x_lo, y_hi = -x_lo;
  const bool many = input.series.size() > 20;
  int index = 0;
  for (const auto& s : input.series) {
    const QColor color = seriesColor(index++);
    auto x = std::make_shared<const std::vector<double>>(s.x);
    auto raw = std::make_shared<const std::vector<double>>(s.y);
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (input.log_x && !(s.x[i] > 0)) ||
          (input.log_y && !(s.y[i] > 0)))
        continue;
      x_lo = std::min(x_lo, s.x[i]);
      x_hi = std::max(x_hi, s.x[i]);
      y_lo = std::min(y_lo, s.y[i]);
      y_hi = std::max(y_hi, s.y[i]);
    }
    if (input.ema > 0) {
      QCPGraph* faint = plot.addGraph();
      faint->setPen(QPen(faded(color, 60), 1.0));
      faint->removeFromLegend();
      faint->setVisible(s.visible);
      store->entries.push_back({faint, x, raw});
      auto smooth = std::make_shared<const std::vector<double>>(emaSmooth(s.y, input.ema));
      QCPGraph* g = plot.addGraph();
      g->setPen(QPen(color, many ? 1.0 : 1.6));
      g->setName(s.label);
      g->setVisible(s.visible);
      store->entries.push_back({g, x, smooth});
    } else {
      QCPGraph* g = plot.addGraph();
      g->setPen(QPen(color, many ? 1.0 : 1.6));
      g->setName(s.label);
      g->setVisible(s.visible);
      store->entries.push_back({g, x, raw});
    }
  }
  if (std::isfinite(x_lo)) {
    if (input.log_x)
      plot.xAxis->setRange(x_lo / 1.2, x_hi * 1.2);
    else
      plot.xAxis->setRange(x_lo - 0.02 * (x_hi - x_lo), x_hi + 0.02 * (x_hi - x_lo));
    if (input.log_y)
      plot.yAxis->setRange(y_lo / 1.05, y_hi * 1.05);
    else {
      const double pad = 0.05 * (y_hi - y_lo + 1e-12);
      plot.yAxis->setRange(y_lo - pad, y_hi + pad);
    }
  }
  if (input.series.size() <= 24) placeLegendRight(plot);
  redecimateCurves(plot);
  plot.replot();
}

size_t redecimateCurves(QCustomPlot& plot) {
  CurveStore* store = storeOf(plot, false);
  if (!store) return 0;
  const QCPRange range = plot.xAxis->range();
  const int columns = plotColumns(plot);
  size_t total = 0;
  for (auto& e : store->entries) {
    if (!e.graph->visible()) {
      e.graph->data()->clear();
      continue;
    }
    DecimatedCurve d = decimateMinMax(*e.x, *e.y, range.lower, range.upper, columns, store->log_x);
    e.graph->setData(d.x, d.y, /*alreadySorted=*/true);
    total += static_cast<size_t>(d.x.size());
  }
  return total;
}

}  // namespace deepladder::plots
