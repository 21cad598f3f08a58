// The scatter of runs with fitted laws (see scatter_plot.h).
#include "ui/plots/scatter_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/plots/plot_style.h"

namespace deepladder::plots {

std::vector<std::pair<double, double>> lawCurve(const fitting::ScatterLaw& law, double x_lo,
                                                double x_hi, bool log_x, int points) {
  std::vector<std::pair<double, double>> out;
  if (!law.fitted() || !(x_hi >= x_lo) || points < 2) return out;
  const bool geometric = log_x && x_lo > 0;
  for (int i = 0; i < points; ++i) {
    const double t = static_cast<double>(i) / (points - 1);
    const double x = geometric ? x_lo * std::pow(x_hi / x_lo, t) : x_lo + t * (x_hi - x_lo);
    const double y = law.predict(x);
    if (std::isfinite(y)) out.emplace_back(x, y);
  }
  return out;
}

namespace {

// The 1-2-5 value at or below (above) v > 0: log axes then end on labelled values.
double niceBelow(double v) {
  const double decade = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {5.0, 2.0, 1.0})
    if (m * decade <= v) return m * decade;
  return decade;
}
double niceAbove(double v) {
  const double decade = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * decade >= v) return m * decade;
  return 10 * decade;
}

}  // namespace

void drawScatter(QCustomPlot& plot, const ScatterPlotInput& input) {
  QString title =
      input.title.isEmpty() ? input.y_label + QStringLiteral(" vs ") + input.x_label : input.title;
  if (!input.note.isEmpty()) title += (title.isEmpty() ? "" : "\n") + input.note;
  preparePlot(plot, title, input.x_label, input.y_label);
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
  const double inf = std::numeric_limits<double>::infinity();
  double x_lo = inf, x_hi = -inf, y_lo = inf, y_hi = -inf;
  auto drawable = [&](double x, double y) {
    return std::isfinite(x) && std::isfinite(y) && (!input.log_x || x > 0) &&
           (!input.log_y || y > 0);
  };
  for (size_t g = 0; g < input.groups.size(); ++g) {
    const std::string& group = input.groups[g];
    const QColor color = seriesColor(static_cast<int>(g));
    QCPGraph* dots = plot.addGraph();
    dots->setLineStyle(QCPGraph::lsNone);
    dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 7));
    dots->setName(input.group_by.isEmpty()
                      ? QString::fromStdString(group)
                      : input.group_by + QStringLiteral("=") + QString::fromStdString(group));
    double g_lo = inf, g_hi = -inf;
    for (const auto& p : input.points) {
      if (p.group != group || !drawable(p.x, p.y)) continue;
      dots->addData(p.x, p.y);
      g_lo = std::min(g_lo, p.x);
      g_hi = std::max(g_hi, p.x);
      y_lo = std::min(y_lo, p.y);
      y_hi = std::max(y_hi, p.y);
    }
    x_lo = std::min(x_lo, g_lo);
    x_hi = std::max(x_hi, g_hi);
    const auto law = std::find_if(input.laws.begin(), input.laws.end(),
                                  [&](const fitting::ScatterLaw& l) { return l.group == group; });
    if (law == input.laws.end() || !law->fitted() || !std::isfinite(g_lo)) continue;
    QCPGraph* line = plot.addGraph();
    line->setPen(QPen(color, 1.6));
    line->setName(QString::fromStdString(group + " fit: " + law->formula()));
    for (const auto& [x, y] : lawCurve(*law, g_lo, g_hi, input.log_x))
      if (drawable(x, y)) line->addData(x, y);
  }
  if (std::isfinite(x_lo)) {
    if (input.log_x) {
      plot.xAxis->setRange(niceBelow(x_lo / 1.3), niceAbove(x_hi * 1.3));
    } else {
      const double pad = std::max(1e-12, 0.06 * (x_hi - x_lo));
      plot.xAxis->setRange(x_lo - pad, x_hi + pad);
    }
    if (input.log_y)
      plot.yAxis->setRange(y_lo / 1.08, y_hi * 1.08);
    else {
      const double pad = std::max(1e-9, 0.08 * (y_hi - y_lo));
      plot.yAxis->setRange(y_lo - pad, y_hi + pad);
    }
  } else {
    auto* message = new QCPItemText(&plot);
    message->position->setType(QCPItemPosition::ptAxisRectRatio);
    message->position->setCoords(0.5, 0.5);
    message->setText(QStringLiteral("No finished run has both values"));
  }
  placeLegendRight(plot);
  plot.replot();
}

}  // namespace deepladder::plots
