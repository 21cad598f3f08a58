// The projection history plot (see history_plot.h).
#include "ui/plots/history_plot.h"

#include <qcustomplot.h>

#include <cmath>
#include <limits>
#include <map>

#include "fitting/fit_types.h"
#include "ui/plots/plot_style.h"

namespace deepladder::plots {

void drawHistory(QCustomPlot& plot, const HistoryPlotInput& input) {
  const double target =
      input.history.empty() ? fitting::kDefaultTarget : input.history.back().target;
  QString title = input.title;
  if (title.isEmpty())
    title = QStringLiteral("Projection at %1 FLOPs, run by run").arg(compactNumber(target));
  QString baseline;
  for (const auto& s : input.history)
    if (!s.baseline.empty()) baseline = QString::fromStdString(s.baseline);
  preparePlot(
      plot, title, QStringLiteral("compute spent so far (FLOPs)"),
      baseline.isEmpty()
          ? QStringLiteral("multiplier at %1 (\u00D7)").arg(compactNumber(target))
          : QStringLiteral("multiplier at %1 vs %2 (\u00D7)").arg(compactNumber(target), baseline));
  setLinearAxis(*plot.yAxis);

  // Arms in name order, each with its points where it had a projection.
  std::map<std::string, std::vector<std::tuple<double, double, double, double>>> by_arm;
  for (const auto& s : input.history)
    for (const auto& a : s.arms)
      if (std::isfinite(a.multiplier) && s.compute_spent > 0)
        by_arm[a.arm].emplace_back(s.compute_spent, a.multiplier, a.lo, a.hi);

  // The axis follows the multipliers and their intervals, but an interval of a ladder's first
  // rungs can span twenty decades: its bounds are clipped to kIntervalClip times beyond the
  // multipliers shown (and 1x), and the plot says so.
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = 0, m_lo = 1, m_hi = 1;
  for (const auto& [arm, points] : by_arm)
    for (const auto& [x, m, lo, hi] : points) {
      x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
      m_lo = std::min(m_lo, m), m_hi = std::max(m_hi, m);
    }
  const double clip_lo = m_lo / kIntervalClip, clip_hi = m_hi * kIntervalClip;
  double y_lo = m_lo, y_hi = m_hi;
  bool clipped = false;
  int index = 1;  // colour 0 is the baseline's, as in the frontier and multiplier plots
  for (const auto& [arm, points] : by_arm) {
    const QColor color = seriesColor(index++);
    QCPGraph* upper = plot.addGraph();
    QCPGraph* lower = plot.addGraph();
    QCPGraph* line = plot.addGraph();
    for (const auto& [x, m, lo, hi] : points) {
      line->addData(x, m);
      if (std::isfinite(lo) && std::isfinite(hi)) {
        clipped = clipped || lo < clip_lo || hi > clip_hi;
        const double shown_lo = std::max(lo, clip_lo), shown_hi = std::min(hi, clip_hi);
        upper->addData(x, shown_hi);
        lower->addData(x, shown_lo);
        y_lo = std::min(y_lo, shown_lo), y_hi = std::max(y_hi, shown_hi);
      }
    }
    makeBand(*upper, *lower, color, 45);
    line->setPen(QPen(color, 2.0));
    line->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(color, 1.5), QBrush(Qt::white), 6));
    const auto& last = points.back();
    line->setName(QStringLiteral("%1: %2\u00D7 [%3, %4]")
                      .arg(QString::fromStdString(arm), compactNumber(std::get<1>(last)),
                           compactNumber(std::get<2>(last)), compactNumber(std::get<3>(last))));
  }
  if (clipped) {
    QCPItemText* note = new QCPItemText(&plot);
    note->setObjectName(QStringLiteral("clip-note"));
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.02, 0.98);
    note->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    note->setColor(plot.xAxis->labelColor());
    note->setText(QStringLiteral("intervals clipped to %1\u00D7\u2013%2\u00D7")
                      .arg(compactNumber(clip_lo), compactNumber(clip_hi)));
  }
  if (!std::isfinite(x_lo)) {  // nothing to show yet
    x_lo = 1e17, x_hi = 1e20;
    QCPItemText* note = new QCPItemText(&plot);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.3);
    note->setColor(plot.xAxis->labelColor());
    note->setText(QStringLiteral("no projection yet: the baseline needs 3 rungs, an arm 2"));
  }
  QCPGraph* one = plot.addGraph();
  setReferenceLinePen(*one);
  one->addData(x_lo / 1.5, 1.0);
  one->addData(x_hi * 1.5, 1.0);
  one->setName(QStringLiteral("1\u00D7 (no gain)"));
  // Compute spent grows by factors over a ladder, but a ladder nearly done moves it little:
  // a log axis only when the points span a decade or more.
  if (x_hi / x_lo >= 10) {
    setLogAxis(*plot.xAxis);
    plot.xAxis->setRange(x_lo / 1.5, x_hi * 1.5);
  } else {
    setLinearAxis(*plot.xAxis);
    plot.xAxis->setNumberPrecision(2);
    const double pad = 0.05 * (x_hi - x_lo) + 0.02 * x_hi;
    plot.xAxis->setRange(std::max(0.0, x_lo - pad), x_hi + pad);
  }
  setRatioAxisRange(*plot.yAxis, y_lo, y_hi);  // before any projection: the 1x line alone
  placeLegendInFreestCorner(plot, {Qt::AlignTop | Qt::AlignRight, Qt::AlignBottom | Qt::AlignRight,
                                   Qt::AlignTop | Qt::AlignLeft});
  plot.replot();
}

}  // namespace deepladder::plots
