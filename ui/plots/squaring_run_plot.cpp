// Drawing a serial-task run's accuracy cells (see squaring_run_plot.h).
#include "ui/plots/squaring_run_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "core/squaring/baselines.h"
#include "ui/plots/plot_style.h"

namespace deepladder::plots {

bool SquaringCells::outOfDistribution(int64_t b, int64_t t) const {
  if (!tier) return false;
  const bool seen_b = std::count(tier->modulus_bits.begin(), tier->modulus_bits.end(), b) > 0;
  const bool seen_t = std::count(tier->train_t.begin(), tier->train_t.end(), t) > 0;
  return !seen_b || !seen_t;
}

bool SquaringCells::unseenBits(int64_t b) const {
  return tier && std::count(tier->modulus_bits.begin(), tier->modulus_bits.end(), b) == 0;
}

// Heatmap: x = T index, y = bits index; each cell's accuracy with its chance and ceiling.
void drawSquaringHeatmap(QCustomPlot& plot, const SquaringCells& data, const QString& title) {
  const auto& cells = data.cells;
  const auto& bits = data.bits;
  const auto& ts = data.ts;
  const auto& maps = data.maps;
  preparePlot(plot, title, QStringLiteral("T (squarings)"), QStringLiteral("modulus bits"));
  plot.xAxis->setScaleType(QCPAxis::stLinear);
  plot.yAxis->setScaleType(QCPAxis::stLinear);
  QSharedPointer<QCPAxisTickerText> x_ticks(new QCPAxisTickerText), y_ticks(new QCPAxisTickerText);
  for (size_t i = 0; i < ts.size(); ++i) x_ticks->addTick(i, QString::number(ts[i]));
  for (size_t i = 0; i < bits.size(); ++i) y_ticks->addTick(i, QString::number(bits[i]));
  plot.xAxis->setTicker(x_ticks);
  plot.yAxis->setTicker(y_ticks);
  plot.xAxis->grid()->setVisible(false);
  plot.yAxis->grid()->setVisible(false);
  auto* map = new QCPColorMap(plot.xAxis, plot.yAxis);
  map->data()->setSize(static_cast<int>(ts.size()), static_cast<int>(bits.size()));
  // Cell centres sit on 0 .. n-1. QCPColorMap spreads a single cell over the whole range, so a
  // lone row or column gets the range -0.5 .. 0.5 (else it fills only half the axis).
  auto cellRange = [](size_t n) {
    return n > 1 ? QCPRange(0, static_cast<double>(n - 1)) : QCPRange(-0.5, 0.5);
  };
  map->data()->setRange(cellRange(ts.size()), cellRange(bits.size()));
  // Viridis-like stops: dark at 0, yellow at 1, so a 100% cell is coloured, not blank white.
  QCPColorGradient gradient;
  gradient.setColorStopAt(0.0, QColor(68, 1, 84));
  gradient.setColorStopAt(0.25, QColor(59, 82, 139));
  gradient.setColorStopAt(0.5, QColor(33, 145, 140));
  gradient.setColorStopAt(0.75, QColor(94, 201, 98));
  gradient.setColorStopAt(1.0, QColor(253, 231, 37));
  gradient.setColorInterpolation(QCPColorGradient::ciRGB);
  gradient.setLevelCount(200);
  map->setGradient(gradient);
  map->setDataRange(QCPRange(0, 1));
  map->setInterpolate(false);
  for (size_t xi = 0; xi < ts.size(); ++xi) {
    for (size_t yi = 0; yi < bits.size(); ++yi) {
      auto it = cells.find({bits[yi], ts[xi]});
      if (it == cells.end() || it->second.second == 0) {
        map->data()->setAlpha(static_cast<int>(xi), static_cast<int>(yi), 0);
        continue;
      }
      const double acc = static_cast<double>(it->second.first) / it->second.second;
      map->data()->setCell(static_cast<int>(xi), static_cast<int>(yi), acc);
      auto* text = new QCPItemText(&plot);
      text->position->setCoords(xi, yi);
      QString label = QString::number(acc * 100, 'f', 0) + QLatin1Char('%');
      const squaring::AccuracyCell* base =
          maps ? maps->combined.find(static_cast<int>(bits[yi]), ts[xi]) : nullptr;
      if (base && base->total == it->second.second) {
        label += QStringLiteral("\n(%1%").arg(base->chance() * 100, 0, 'f', 1);
        if (!std::isnan(base->ceiling()))
          label += QStringLiteral(" | %1%").arg(base->ceiling() * 100, 0, 'f', 0);
        label += QLatin1Char(')');
      }
      text->setText(label);
      text->setColor(acc > 0.6 ? Qt::black : Qt::white);
      if (data.outOfDistribution(bits[yi], ts[xi])) {
        // Black dashes on a white line: visible on every colour of the scale.
        for (const QPen& pen : {QPen(Qt::white, 3.0), QPen(Qt::black, 1.6, Qt::DashLine)}) {
          auto* box = new QCPItemRect(&plot);
          box->topLeft->setCoords(xi - 0.44, yi + 0.44);
          box->bottomRight->setCoords(xi + 0.44, yi - 0.44);
          box->setPen(pen);
        }
      }
    }
  }
  auto* scale = new QCPColorScale(&plot);
  plot.plotLayout()->addElement(plot.plotLayout()->rowCount() - 1, 1, scale);
  scale->setGradient(gradient);
  scale->setDataRange(QCPRange(0, 1));
  scale->axis()->setLabel(QStringLiteral("accuracy"));
  map->setColorScale(scale);
  auto* group = new QCPMarginGroup(&plot);
  plot.axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  plot.xAxis->setRange(-0.5, ts.size() - 0.5);
  plot.yAxis->setRange(-0.5, bits.size() - 0.5);
  plot.replot();
}

// Accuracy vs T, one line per modulus size, with the population chance of a fixed modulus.
void drawSquaringAccuracyByT(QCustomPlot& plot, const SquaringCells& data) {
  const auto& cells = data.cells;
  const auto& ts = data.ts;
  const auto* tier = data.tier;
  preparePlot(plot, QStringLiteral("Accuracy vs test-time iterations"),
              QStringLiteral("T (squarings)"), QStringLiteral("exact-match accuracy"));
  setLogAxis(*plot.xAxis);
  plot.xAxis->setNumberFormat("gb");
  QSharedPointer<QCPAxisTickerText> t_ticks(new QCPAxisTickerText);
  for (int64_t t : ts) t_ticks->addTick(static_cast<double>(t), QString::number(t));
  plot.xAxis->setTicker(t_ticks);
  int index = 0;
  for (int64_t b : data.bits) {
    QCPGraph* g = plot.addGraph();
    const QColor color = seriesColor(index++);
    g->setPen(QPen(color, 1.8));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 6));
    for (int64_t t : ts) {
      auto it = cells.find({b, t});
      if (it != cells.end() && it->second.second > 0)
        g->addData(static_cast<double>(t),
                   static_cast<double>(it->second.first) / it->second.second);
    }
    g->setName(QStringLiteral("%1-bit moduli%2")
                   .arg(b)
                   .arg(data.unseenBits(b) ? QStringLiteral(" (unseen)") : QString()));
  }
  if (tier && tier->fixedModulus()) {
    QCPGraph* chance = plot.addGraph();
    chance->setPen(QPen(QColor(120, 120, 120), 1.2, Qt::DashLine));
    for (int64_t t : ts)
      chance->addData(static_cast<double>(t), squaring::populationChance(tier->fixedN(), t));
    chance->setName(QStringLiteral("chance (commonest answer over all x)"));
  }
  plot.xAxis->setRange(ts.front() / 1.4, ts.back() * 1.4);
  plot.yAxis->setRange(-0.03, 1.05);
  placeLegendRight(plot);
  plot.replot();
}

}  // namespace deepladder::plots
