// The backtest plot (see backtest_plot.h).
#include "ui/plots/backtest_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ui/plots/plot_style.h"

namespace deepladder::plots {
namespace {

void styleAxes(QCPAxisRect& rect, const QCustomPlot& plot) {
  for (QCPAxis* axis : {rect.axis(QCPAxis::atBottom), rect.axis(QCPAxis::atLeft)}) {
    axis->setTickLabelFont(plot.xAxis->tickLabelFont());
    axis->setLabelFont(plot.xAxis->labelFont());
    axis->setBasePen(plot.xAxis->basePen());
    axis->setTickPen(plot.xAxis->tickPen());
    axis->setSubTickPen(plot.xAxis->subTickPen());
    axis->setTickLabelColor(plot.xAxis->tickLabelColor());
    axis->setLabelColor(plot.xAxis->labelColor());
    axis->grid()->setPen(plot.xAxis->grid()->pen());
    axis->grid()->setSubGridVisible(false);
    axis->setLabelPadding(6);
  }
}

}  // namespace

void drawBacktest(QCustomPlot& plot, const BacktestPlotInput& input) {
  const fitting::BacktestResult& r = input.backtest;
  // A redraw: back to the one axis rect preparePlot knows (the second panel and its plottables
  // go; the first rect is kept, as every plot keeps it).
  QCPAxisRect* first = plot.axisRect();
  if (first->layout() && first->layout() != plot.plotLayout()) {
    plot.clearPlottables();
    first->layout()->take(first);
    plot.plotLayout()->clear();
    plot.plotLayout()->simplify();
    plot.plotLayout()->addElement(0, 0, first);
  }
  // The quotable line of the largest k under the title.
  QString title = input.title;
  if (!r.lines.empty() && !input.compact)
    title += (title.isEmpty() ? QString() : QStringLiteral("\n")) +
             QString::fromStdString(r.lines.back());
  preparePlot(plot, title,
              input.compact ? QStringLiteral("measured loss")
                            : QStringLiteral("measured loss (nats/token)"),
              input.compact ? QStringLiteral("predicted loss")
                            : QStringLiteral("predicted loss (nats/token)"));
  setLinearAxis(*plot.xAxis);
  setLinearAxis(*plot.yAxis);

  // The second panel, right of the first (in the row the first sits in, below any title).
  QCPAxisRect* left = plot.axisRect();
  int row = 0, column = 0;
  for (int i = 0; i < plot.plotLayout()->elementCount(); ++i)
    if (plot.plotLayout()->elementAt(i) == left) plot.plotLayout()->indexToRowCol(i, row, column);
  if (row > 0) {  // the title spans both panels
    auto* title = plot.plotLayout()->element(0, 0);
    plot.plotLayout()->take(title);
    plot.plotLayout()->simplify();
    plot.plotLayout()->insertRow(0);
    plot.plotLayout()->addElement(0, 0, title);
    row = 1;
  }
  auto* right = new QCPAxisRect(&plot);
  auto* panels = new QCPLayoutGrid;
  plot.plotLayout()->take(left);
  plot.plotLayout()->simplify();
  plot.plotLayout()->addElement(row, 0, panels);
  panels->addElement(0, 0, left);
  panels->addElement(0, 1, right);
  styleAxes(*right, plot);
  QCPAxis* ex = right->axis(QCPAxis::atBottom);
  QCPAxis* ey = right->axis(QCPAxis::atLeft);
  ex->setLabel(input.compact
                   ? QStringLiteral("extrapolation (\u00D7 largest C fitted)")
                   : QStringLiteral("extrapolation factor (held-out C / largest C fitted)"));
  ey->setLabel(input.compact ? QStringLiteral("error (%)")
                             : QStringLiteral("(predicted \u2212 measured) / measured (%)"));
  setLinearAxis(*ex);

  // One colour per arm, in the fit's order of the arms (the frontier plot's colours).
  std::vector<std::string> arms = r.arms;
  for (const auto& p : r.points)
    if (std::find(arms.begin(), arms.end(), p.arm) == arms.end()) arms.push_back(p.arm);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  double ex_lo = lo, ex_hi = hi, err_lo = 0, err_hi = 0;
  for (size_t a = 0; a < arms.size(); ++a) {
    const QColor color = seriesColor(static_cast<int>(a));
    QCPGraph* points = plot.addGraph(plot.xAxis, plot.yAxis);
    points->setLineStyle(QCPGraph::lsNone);
    points->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(color, 1.5), QBrush(Qt::white), 7));
    points->setName(QString::fromStdString(arms[a]));
    auto* bars = new QCPErrorBars(plot.xAxis, plot.yAxis);
    bars->setPen(QPen(color, 1.2));
    bars->removeFromLegend();
    QVector<double> minus, plus;
    QCPGraph* errors = plot.addGraph(ex, ey);
    errors->setLineStyle(QCPGraph::lsNone);
    errors->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(color), QBrush(color), 7));
    errors->removeFromLegend();
    for (const auto& p : r.points) {
      if (p.arm != arms[a] || !std::isfinite(p.predicted_loss)) continue;
      points->addData(p.measured_loss, p.predicted_loss);
      minus.push_back(p.has_interval ? p.predicted_loss - p.lo : 0.0);
      plus.push_back(p.has_interval ? p.hi - p.predicted_loss : 0.0);
      lo = std::min({lo, p.measured_loss, p.has_interval ? p.lo : p.predicted_loss});
      hi = std::max({hi, p.measured_loss, p.has_interval ? p.hi : p.predicted_loss});
      if (std::isfinite(p.extrapolation) && p.extrapolation > 0) {
        errors->addData(p.extrapolation, 100 * p.rel_error);
        ex_lo = std::min(ex_lo, p.extrapolation), ex_hi = std::max(ex_hi, p.extrapolation);
        err_lo = std::min(err_lo, 100 * p.rel_error), err_hi = std::max(err_hi, 100 * p.rel_error);
      }
    }
    bars->setData(minus, plus);
    bars->setDataPlottable(points);
    if (points->data()->isEmpty()) points->removeFromLegend();  // nothing held out of this arm
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  const double pad = 0.05 * (hi - lo + 1e-6);
  // The diagonal: a prediction on it was exact.
  QCPGraph* diagonal = plot.addGraph(plot.xAxis, plot.yAxis);
  setReferenceLinePen(*diagonal);
  diagonal->addData(lo - pad, lo - pad);
  diagonal->addData(hi + pad, hi + pad);
  diagonal->setName(QStringLiteral("predicted = measured"));
  plot.xAxis->setRange(lo - pad, hi + pad);
  plot.yAxis->setRange(lo - pad, hi + pad);

  if (!std::isfinite(ex_lo)) ex_lo = 1, ex_hi = 10;
  ex_lo = 1.0, ex_hi = ex_hi + 0.05 * (ex_hi - 1.0) + 0.1;  // 1: the edge of the fitted rungs
  QCPGraph* zero = plot.addGraph(ex, ey);
  setReferenceLinePen(*zero);
  zero->addData(ex_lo, 0.0);
  zero->addData(ex_hi, 0.0);
  zero->removeFromLegend();
  ex->setRange(ex_lo, ex_hi);
  const double err_pad = 0.1 * (err_hi - err_lo + 0.1);
  ey->setRange(err_lo - err_pad, err_hi + err_pad);

  // Predictions lie along the diagonal: the lower right corner stays free.
  if (input.compact)
    plot.legend->setVisible(false);
  else
    placeLegendInside(plot, Qt::AlignBottom | Qt::AlignRight);
  applyPlotPalette(plot, plot.palette());
  plot.replot();
}

}  // namespace deepladder::plots
