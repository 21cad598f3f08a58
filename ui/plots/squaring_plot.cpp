// The squaring-ladder plot (see squaring_plot.h).
#include "ui/plots/squaring_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/plots/plot_style.h"

namespace deepladder::plots {

namespace {

// " [inadmissible: squaring.deep_supervision]" (or "[2 of 3 runs inadmissible: ...]") beside an
// arm whose runs make training targets from the task's algorithm; "" when every run is admissible.
QString inadmissibleNote(const fitting::SquaringArmSummary& arm) {
  size_t inadmissible = 0;
  std::string options;
  for (const auto& r : arm.runs)
    if (!r.admissible) {
      ++inadmissible;
      if (options.find(r.inadmissible_options) == std::string::npos)
        options += (options.empty() ? "" : ", ") + r.inadmissible_options;
    }
  if (inadmissible == 0) return {};
  const QString which =
      inadmissible == arm.runs.size()
          ? QStringLiteral("inadmissible")
          : QStringLiteral("%1 of %2 runs inadmissible").arg(inadmissible).arg(arm.runs.size());
  return QStringLiteral(" [%1: %2]").arg(which, QString::fromStdString(options));
}

}  // namespace

void drawSquaringLadder(QCustomPlot& plot, const SquaringPlotInput& input) {
  preparePlot(plot, input.title, QStringLiteral("training compute C (FLOPs)"),
              QStringLiteral("OOD exact match (circles, fitted line)"));
  setLogAxis(*plot.xAxis);
  setLinearAxis(*plot.yAxis);
  plot.yAxis2->setVisible(true);
  plot.yAxis2->setLabel(QStringLiteral("Max T (squares: seen moduli, triangles: unseen)"));
  plot.yAxis2->setLabelFont(plot.yAxis->labelFont());
  plot.yAxis2->setTickLabelFont(plot.yAxis->tickLabelFont());

  const auto& summary = input.summary;
  double c_min = std::numeric_limits<double>::infinity(), c_max = 0;
  int64_t t_max = 1;
  for (const auto& arm : summary.arms)
    for (const auto& r : arm.runs) {
      c_min = std::min(c_min, r.compute);
      c_max = std::max(c_max, r.compute);
      t_max = std::max({t_max, r.max_t_seen, r.max_t_unseen});
    }
  if (!(c_max > 0)) {
    plot.replot();
    return;
  }

  int index = 0;
  for (const auto& arm : summary.arms) {
    const QColor color = seriesColor(index++);
    QCPGraph* ood = plot.addGraph(plot.xAxis, plot.yAxis);
    ood->setLineStyle(QCPGraph::lsNone);
    ood->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 8));
    QCPGraph* seen = plot.addGraph(plot.xAxis, plot.yAxis2);
    seen->setPen(QPen(faded(color, 160), 1.2));
    seen->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, color, color, 7));
    QCPGraph* unseen = plot.addGraph(plot.xAxis, plot.yAxis2);
    unseen->setPen(QPen(faded(color, 160), 1.2, Qt::DashLine));
    unseen->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle, color, Qt::white, 8));
    for (const auto& r : arm.runs) {
      ood->addData(r.compute, r.ood_exact);
      seen->addData(r.compute, static_cast<double>(r.max_t_seen));
      unseen->addData(r.compute, static_cast<double>(r.max_t_unseen));
    }
    QString name = QString::fromStdString(arm.arm);
    const auto& t = arm.ood_exact;
    if (t.defined) {
      // The OOD line across the arm's runs.
      QCPGraph* line = plot.addGraph(plot.xAxis, plot.yAxis);
      line->setPen(QPen(color, 2.0));
      const double lo = std::log10(arm.runs.front().compute),
                   hi = std::log10(arm.runs.back().compute);
      for (int i = 0; i <= 40; ++i) {
        const double x = lo + (hi - lo) * i / 40.0;
        line->addData(std::pow(10.0, x), t.a + t.b * (x - std::log10(summary.c_ref)));
      }
      line->removeFromLegend();
      name += QStringLiteral(": OOD %1 per decade").arg(compactNumber(t.b, 3));
      if (std::isfinite(t.b_se)) name += QStringLiteral(" \u00B1 %1").arg(compactNumber(t.b_se, 2));
    }
    name += inadmissibleNote(arm);
    ood->setName(name);
    seen->removeFromLegend();
    unseen->removeFromLegend();
  }
  plot.xAxis->setRange(c_min / 2, c_max * 2);
  plot.yAxis->setRange(-0.05, 1.05);
  plot.yAxis2->setRange(-0.05 * static_cast<double>(t_max), 1.1 * static_cast<double>(t_max));
  placeLegendRight(plot);
  plot.replot();
}

}  // namespace deepladder::plots
