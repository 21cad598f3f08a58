// Shared look of every deepladder plot (see plot_style.h).
#include "ui/plots/plot_style.h"

#include <qcustomplot.h>

#include <QPalette>
#include <algorithm>
#include <cmath>

#include "ui/plots/legend_fit.h"

namespace deepladder::plots {

QColor seriesColor(int index) {
  // Okabe-Ito plus four of Tableau's: distinguishable for most colour vision.
  static const QColor kColors[] = {
      QColor(0, 114, 178),   QColor(213, 94, 0),   QColor(0, 158, 115),  QColor(204, 121, 167),
      QColor(230, 159, 0),   QColor(86, 180, 233), QColor(120, 94, 240), QColor(140, 86, 75),
      QColor(127, 127, 127), QColor(188, 189, 34)};
  const int n = static_cast<int>(sizeof kColors / sizeof kColors[0]);
  return kColors[((index % n) + n) % n];
}

QColor faded(const QColor& color, int alpha) {
  QColor c = color;
  c.setAlpha(alpha);
  return c;
}

void makeBand(QCPGraph& upper, QCPGraph& lower, const QColor& color, int alpha) {
  for (QCPGraph* g : {&upper, &lower}) {
    g->setPen(Qt::NoPen);
    g->removeFromLegend();
    g->setLayer(QStringLiteral("grid"));
  }
  upper.setBrush(faded(color, alpha));
  upper.setChannelFillGraph(&lower);
}

void preparePlot(QCustomPlot& plot, const QString& title, const QString& x_label,
                 const QString& y_label) {
  plot.clearGraphs();
  plot.clearPlottables();
  plot.clearItems();
  // Back to a single axis rect (an earlier draw may have added a title row and a legend column);
  // the legend goes back into the rect's inset layout, hidden, until placeLegendRight.
  QCPLayoutGrid* layout = plot.plotLayout();
  QCPAxisRect* rect = plot.axisRect();
  if (plot.legend->layout()) plot.legend->layout()->take(plot.legend);
  if (rect->layout() == layout && layout->elementCount() > 1) {
    layout->take(rect);
    layout->clear();
    layout->simplify();
    layout->addElement(0, 0, rect);
  }
  if (!plot.legend->layout())
    rect->insetLayout()->addElement(plot.legend, Qt::AlignTop | Qt::AlignRight);
  plot.legend->clearItems();
  QFont font = plot.font();
  font.setPointSizeF(10);
  QFont label_font = font;
  label_font.setPointSizeF(10.5);
  for (QCPAxis* axis : {plot.xAxis, plot.yAxis}) {
    axis->setTickLabelFont(font);
    axis->setLabelFont(label_font);
    axis->grid()->setPen(QPen(QColor(0, 0, 0, 35), 1, Qt::DotLine));
    axis->grid()->setSubGridVisible(false);
    axis->setLabelPadding(6);
  }
  plot.xAxis->setLabel(x_label);
  plot.yAxis->setLabel(y_label);
  plot.xAxis2->setVisible(false);
  plot.yAxis2->setVisible(false);
  plot.legend->setFont(font);
  plot.legend->setVisible(false);
  if (!title.isEmpty()) {
    QFont title_font = font;
    title_font.setPointSizeF(12);
    title_font.setBold(true);
    plot.plotLayout()->insertRow(0);
    plot.plotLayout()->addElement(0, 0, new QCPTextElement(&plot, title, title_font));
  }
  applyPlotPalette(plot, plot.palette());
}

void placeLegendInFreestCorner(QCustomPlot& plot, const std::vector<Qt::Alignment>& corners) {
  if (plot.legend->itemCount() == 0 || corners.empty()) return;
  // Pixel positions of what is drawn: every data point, and for a filled band a few points
  // between its edges.
  std::vector<QPointF> drawn;
  plot.replot(QCustomPlot::rpImmediateRefresh);  // axis ranges -> pixels at the current size
  for (int i = 0; i < plot.graphCount(); ++i) {
    QCPGraph* g = plot.graph(i);
    if (!g->visible()) continue;
    QCPGraph* other = g->channelFillGraph();
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
      if (!std::isfinite(it->value)) continue;
      drawn.push_back(g->coordsToPixels(it->key, it->value));
      if (!other) continue;
      auto match = other->data()->findBegin(it->key, false);
      if (match == other->data()->constEnd()) continue;
      for (double f : {0.25, 0.5, 0.75}) {
        const QPointF a = g->coordsToPixels(it->key, it->value);
        const QPointF b = g->coordsToPixels(it->key, match->value);
        drawn.push_back(a + f * (b - a));
      }
    }
  }
  Qt::Alignment best = corners.front();
  long best_count = -1;
  for (Qt::Alignment corner : corners) {
    placeLegendInside(plot, corner);
    plot.replot(QCustomPlot::rpImmediateRefresh);
    const QRectF rect = plot.legend->outerRect();
    long count = 0;
    for (const QPointF& p : drawn) count += rect.contains(p);
    if (best_count < 0 || count < best_count) best = corner, best_count = count;
  }
  placeLegendInside(plot, best);
}

namespace {
const char* kReferenceLine = "deepladder_reference_line";
QColor referenceGrey(bool dark) {
  return dark ? QColor(165, 165, 165) : QColor(90, 90, 90);
}
}  // namespace

void setReferenceLinePen(QCPGraph& graph, double width) {
  graph.setProperty(kReferenceLine, true);
  graph.setPen(
      QPen(referenceGrey(graph.parentPlot() && isDarkPalette(graph.parentPlot()->palette())), width,
           Qt::DashLine));
}

bool isDarkPalette(const QPalette& palette) {
  return palette.color(QPalette::Base).lightness() < 128;
}

QPalette lightPalette() {
  QPalette p;
  p.setColor(QPalette::Base, Qt::white);
  p.setColor(QPalette::Window, Qt::white);
  p.setColor(QPalette::Text, Qt::black);
  p.setColor(QPalette::WindowText, Qt::black);
  return p;
}

void applyPlotPalette(QCustomPlot& plot, const QPalette& palette) {
  const bool dark = isDarkPalette(palette);
  const QColor base = dark ? palette.color(QPalette::Base) : QColor(Qt::white);
  const QColor ink = dark ? palette.color(QPalette::Text) : QColor(Qt::black);
  plot.setBackground(base);
  for (QCPAxis* axis : {plot.xAxis, plot.yAxis, plot.xAxis2, plot.yAxis2}) {
    axis->setBasePen(QPen(ink, 1));
    axis->setTickPen(QPen(ink, 1));
    axis->setSubTickPen(QPen(ink, 1));
    axis->setTickLabelColor(ink);
    axis->setLabelColor(ink);
    QColor grid = ink;
    grid.setAlpha(dark ? 55 : 35);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
  }
  plot.legend->setTextColor(ink);
  QColor legend_fill = base;
  legend_fill.setAlpha(225);
  if (plot.legend->brush().style() != Qt::NoBrush) plot.legend->setBrush(legend_fill);
  QColor border = ink;
  border.setAlpha(60);
  if (plot.legend->borderPen().style() != Qt::NoPen) plot.legend->setBorderPen(QPen(border));
  for (int i = 0; i < plot.graphCount(); ++i)
    if (plot.graph(i)->property(kReferenceLine).toBool()) {
      QPen pen = plot.graph(i)->pen();
      pen.setColor(referenceGrey(dark));
      plot.graph(i)->setPen(pen);
    }
  for (int i = 0; i < plot.plotLayout()->elementCount(); ++i)
    if (auto* text = qobject_cast<QCPTextElement*>(plot.plotLayout()->elementAt(i)))
      text->setTextColor(ink);
}

void setLogAxis(QCPAxis& axis) {
  axis.setScaleType(QCPAxis::stLogarithmic);
  QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
  ticker->setLogBase(10);
  ticker->setSubTickCount(8);
  axis.setTicker(ticker);
  axis.setNumberFormat("eb");  // 10^n with a superscript exponent
  axis.setNumberPrecision(0);
  axis.setSubTicks(true);
}

void setLog2Axis(QCPAxis& axis) {
  axis.setScaleType(QCPAxis::stLogarithmic);
  QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
  ticker->setLogBase(2);
  ticker->setSubTickCount(0);
  axis.setTicker(ticker);
  axis.setNumberFormat("g");
}

void setLinearAxis(QCPAxis& axis) {
  axis.setScaleType(QCPAxis::stLinear);
  axis.setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  axis.setNumberFormat("gb");
  axis.setNumberPrecision(6);
}

void setRatioAxisRange(QCPAxis& axis, double lo, double hi) {
  if (lo > 0 && hi / lo > 10) {
    setLogAxis(axis);
    axis.setRange(lo / 1.5, hi * 1.5);
    return;
  }
  setLinearAxis(axis);
  const double pad = std::max(0.08 * (hi - lo), 0.05 * hi);
  axis.setRange(std::max(0.0, lo - pad), hi + pad);
}

void placeLegendRight(QCustomPlot& plot) {
  if (plot.legend->itemCount() == 0) return;
  plot.legend->setVisible(true);
  QCPLayoutGrid* layout = plot.plotLayout();
  // The axis rect is in the last row; give the legend its own cell to the right of it.
  const int row = layout->rowCount() - 1;
  QCPLayoutGrid* holder = new QCPLayoutGrid;
  layout->addElement(row, 1, holder);
  if (plot.legend->layout()) plot.legend->layout()->take(plot.legend);
  holder->addElement(0, 0, plot.legend);
  holder->addElement(1, 0, new QCPLayoutElement(&plot));  // filler: legend stays at the top
  holder->setRowStretchFactor(0, 0.001);
  holder->setMargins(QMargins(0, 12, 8, 0));
  layout->setColumnStretchFactor(0, 1.0);
  layout->setColumnStretchFactor(1, 0.001);
  plot.legend->setBorderPen(Qt::NoPen);
  plot.legend->setBrush(Qt::NoBrush);
}

void placeLegendInside(QCustomPlot& plot, Qt::Alignment corner) {
  if (plot.legend->itemCount() == 0) return;
  plot.legend->setVisible(true);
  QCPLayoutInset* inset = plot.axisRect()->insetLayout();
  if (plot.legend->layout() != inset) {
    if (plot.legend->layout()) plot.legend->layout()->take(plot.legend);
    inset->addElement(plot.legend, corner);
  } else {
    inset->setInsetAlignment(inset->elements(false).indexOf(plot.legend), corner);
  }
  plot.legend->setBorderPen(QPen(QColor(0, 0, 0, 60)));
  plot.legend->setBrush(QColor(255, 255, 255, 225));
  applyPlotPalette(plot, plot.palette());  // the legend's fill and border follow the theme
  fitLegendToAxisRect(plot);
}

QString compactNumber(double value, int precision) {
  if (!std::isfinite(value)) return QStringLiteral("n/a");
  QString text = QString::number(value, 'g', precision);
  text.replace(QStringLiteral("e+"), QStringLiteral("e"));
  text.replace(QStringLiteral("e0"), QStringLiteral("e"));
  text.replace(QStringLiteral("e-0"), QStringLiteral("e-"));
  return text;
}

}  // namespace deepladder::plots
