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

// Full-resolution data kept on the plot object, keyed by graph. The data is shared between
// draws: a redraw of the same input (a log or smoothing toggle) reuses the copies and the
// smoothed curves instead of copying and re-smoothing every series.
struct CurveStore : QObject {
  struct Entry {
    QCPGraph* graph;
    std::shared_ptr<const std::vector<double>> x, y;
  };
  // One input series as last drawn: the shared copies (also used to recognise the same data
  // in the next draw) and the smoothed curve for `ema`.
  struct Source {
    std::shared_ptr<const std::vector<double>> x, y, smooth;
    double ema = 0.0;
  };
  std::vector<Entry> entries;
  std::vector<Source> sources;
  bool log_x = false;
  // The view the graphs were last decimated for (x range, y pixel, columns).
  double done_lo = 0, done_hi = 0, done_y_pixel = -1;
  int done_columns = 0;
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

constexpr size_t kManySeries = 20;  // beyond this: no legend, no faint raw curves, no antialiasing

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
  std::vector<CurveStore::Source> previous = std::move(store->sources);
  store->sources.clear();

  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo;
  double y_lo = x_lo, y_hi = -x_lo;
  const bool many = input.series.size() > kManySeries;
  // With many series the faint raw curves are left out: at that density they are noise behind
  // the smoothed ones and would double the drawing work.
  const bool raw_behind = input.ema > 0 && !many;
  plot.setAutoAddPlottableToLegend(!many);
  // Graphs are collected here and handed to the store after the ranges are set, so that a
  // rangeChanged handler calling redecimateCurves() does not decimate everything twice.
  std::vector<CurveStore::Entry> entries;
  int index = 0;
  for (size_t k = 0; k < input.series.size(); ++k) {
    const CurveSeries& s = input.series[k];
    const QColor color = seriesColor(index++);
    CurveStore::Source source;
    if (k < previous.size() && *previous[k].x == s.x && *previous[k].y == s.y) {
      source = std::move(previous[k]);  // same data as last draw: share it and its smoothing
    } else {
      source.x = std::make_shared<const std::vector<double>>(s.x);
      source.y = std::make_shared<const std::vector<double>>(s.y);
    }
    const std::vector<double>& xs = *source.x;
    const std::vector<double>& ys = *source.y;
    for (size_t i = 0; i < xs.size() && i < ys.size(); ++i) {
      if (!std::isfinite(ys[i]) || (input.log_x && !(xs[i] > 0)) || (input.log_y && !(ys[i] > 0)))
        continue;
      x_lo = std::min(x_lo, xs[i]);
      x_hi = std::max(x_hi, xs[i]);
      y_lo = std::min(y_lo, ys[i]);
      y_hi = std::max(y_hi, ys[i]);
    }
    const double ema = input.ema > 0 ? std::pow(input.ema, std::max(1.0, s.rows_per_point)) : 0.0;
    if (ema > 0 && (!source.smooth || source.ema != ema)) {
      source.smooth = std::make_shared<const std::vector<double>>(emaSmooth(ys, ema));
      source.ema = ema;
    }
    if (!s.band_lo.empty() && s.band_lo.size() == xs.size() && s.band_hi.size() == xs.size()) {
      QCPGraph* lower = plot.addGraph();
      QCPGraph* upper = plot.addGraph();
      makeBand(*upper, *lower, color, many ? 40 : 60);
      lower->setName(QString());  // unnamed: a legend click on the series hides these with it
      upper->setName(QString());
      lower->setVisible(s.visible);
      upper->setVisible(s.visible);
      entries.push_back({lower, source.x, std::make_shared<const std::vector<double>>(s.band_lo)});
      entries.push_back({upper, source.x, std::make_shared<const std::vector<double>>(s.band_hi)});
      for (size_t i = 0; i < xs.size(); ++i) {
        if (!std::isfinite(s.band_lo[i]) || !std::isfinite(s.band_hi[i]) ||
            (input.log_y && !(s.band_lo[i] > 0)))
          continue;
        y_lo = std::min(y_lo, s.band_lo[i]);
        y_hi = std::max(y_hi, s.band_hi[i]);
      }
    }
    if (raw_behind) {
      QCPGraph* faint = plot.addGraph();
      faint->setPen(QPen(faded(color, 60), 1.0));
      faint->setName(QString());  // (addGraph names it "Graph N")
      faint->removeFromLegend();
      faint->setVisible(s.visible);
      entries.push_back({faint, source.x, source.y});
    }
    QCPGraph* g = plot.addGraph();
    g->setPen(QPen(color, many ? 1.0 : 1.6));
    g->setName(s.label);
    g->setVisible(s.visible);
    entries.push_back({g, source.x, input.ema > 0 ? source.smooth : source.y});
    store->sources.push_back(std::move(source));
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
  plot.setAutoAddPlottableToLegend(true);
  store->entries = std::move(entries);
  if (!many) placeLegendRight(plot);
  plot.setNotAntialiasedElements(many ? QCP::aePlottables | QCP::aeFills : QCP::aeNone);
  redecimateCurves(plot);
  plot.replot(QCustomPlot::rpImmediateRefresh);
}

size_t redecimateCurves(QCustomPlot& plot, bool only_if_view_changed) {
  CurveStore* store = storeOf(plot, false);
  if (!store) return 0;
  const QCPRange range = plot.xAxis->range();
  const int columns = plotColumns(plot);
  // The value one pixel row spans (in log10 on a log axis): min and max closer than that
  // collapse to one point.
  const bool log_y = plot.yAxis->scaleType() == QCPAxis::stLogarithmic;
  const QCPRange y_range = plot.yAxis->range();
  const int rows = plot.axisRect()->height();
  double y_pixel = 0.0;
  if (rows > 0)
    y_pixel = log_y ? (y_range.lower > 0 ? std::log10(y_range.upper / y_range.lower) / rows : 0.0)
                    : y_range.size() / rows;
  if (only_if_view_changed && range.lower == store->done_lo && range.upper == store->done_hi &&
      y_pixel == store->done_y_pixel && columns == store->done_columns)
    return 0;
  store->done_lo = range.lower;
  store->done_hi = range.upper;
  store->done_y_pixel = y_pixel;
  store->done_columns = columns;
  size_t total = 0;
  for (auto& e : store->entries) {
    if (!e.graph->visible()) {
      e.graph->data()->clear();
      continue;
    }
    DecimatedCurve d =
        decimateMinMax(*e.x, *e.y, range.lower, range.upper, columns, store->log_x, y_pixel, log_y);
    e.graph->setData(d.x, d.y, /*alreadySorted=*/true);
    total += static_cast<size_t>(d.x.size());
  }
  return total;
}

}  // namespace deepladder::plots
