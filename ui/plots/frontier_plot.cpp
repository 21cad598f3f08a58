// The compute frontier plot (see frontier_plot.h).
#include "ui/plots/frontier_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>
#include <vector>

#include "fitting/fit_forms.h"
#include "fitting/frontier_band.h"
#include "fitting/frontier_model.h"
#include "fitting/prediction_interval.h"
#include "fitting/sweep_envelope.h"
#include "ui/plots/legend_fit.h"
#include "ui/plots/plot_style.h"

namespace deepladder::plots {
namespace {

// The points of a ladder's sweep that its fit did not use: the other sweep points of each rung
// (fitting/sweep_envelope.h). Empty outside a sweep.
std::vector<bool> unusedSweepPoints(const fitting::ResultsTable& table) {
  std::set<std::tuple<std::string, std::string, std::string>> used;
  for (const auto& p : fitting::sweepEnvelope(table).table.points)
    if (!p.sweep.empty()) used.insert({p.arm, p.size, p.sweep});
  std::vector<bool> unused;
  for (const auto& p : table.points)
    unused.push_back(!p.sweep.empty() && used.count({p.arm, p.size, p.sweep}) == 0);
  return unused;
}

}  // namespace

void drawFrontier(QCustomPlot& plot, const FrontierPlotInput& input) {
  preparePlot(plot, input.title, QStringLiteral("training compute C (FLOPs)"),
              QStringLiteral("final validation loss (nats/token)"));
  setLogAxis(*plot.xAxis);
  setLogAxis(*plot.yAxis);
  plot.yAxis->setNumberFormat("gb");  // losses span well under a decade: plain numbers read better
  plot.yAxis->setNumberPrecision(3);
  QSharedPointer<QCPAxisTickerLog> y_ticker =
      qSharedPointerCast<QCPAxisTickerLog>(plot.yAxis->ticker());
  y_ticker->setSubTickCount(8);

  const auto& result = input.result;
  double c_min = std::numeric_limits<double>::infinity(), c_max = 0;
  double l_min = std::numeric_limits<double>::infinity(), l_max = 0;
  for (const auto& p : input.table.points) {
    c_min = std::min(c_min, p.compute_flops);
    c_max = std::max(c_max, p.compute_flops);
    l_min = std::min(l_min, p.val_loss);
    l_max = std::max(l_max, p.val_loss);
  }
  if (!(c_max > 0)) {
    plot.replot();
    return;
  }

  // Colours by the arm's place among every arm with points, baseline first and the others by
  // name (fitFrontier's order), so an arm keeps its colour while the arms before it have no fit
  // yet in the middle of a ladder.
  std::vector<std::string> order;
  if (!result.baseline.empty()) order.push_back(result.baseline);
  std::set<std::string> others;
  for (const auto& p : input.table.points)
    if (p.arm != result.baseline) others.insert(p.arm);
  for (const auto& f : result.arms)
    if (f.arm != result.baseline) others.insert(f.arm);
  order.insert(order.end(), others.begin(), others.end());
  auto colorOf = [&](const std::string& arm) {
    return seriesColor(
        static_cast<int>(std::find(order.begin(), order.end(), arm) - order.begin()));
  };

  std::vector<QCPGraph*> curves;  // the fitted curves (bands and points are not)
  bool any_band = false;
  const std::vector<bool> unused = unusedSweepPoints(input.table);
  bool any_unused = false;
  for (size_t arm_index = 0; arm_index < result.arms.size(); ++arm_index) {
    const fitting::ArmFit& fit = result.arms[arm_index];
    const bool is_baseline = fit.arm == result.baseline;
    const QColor color = colorOf(fit.arm);
    // A sweep's points that the fit did not use: hollow and faint, behind the fitted ones.
    QCPGraph* others = plot.addGraph();
    others->setLineStyle(QCPGraph::lsNone);
    QColor faint = color;
    faint.setAlpha(110);
    others->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, faint, 5));
    others->removeFromLegend();
    // Points.
    QCPGraph* points = plot.addGraph();
    points->setLineStyle(QCPGraph::lsNone);
    points->setScatterStyle(QCPScatterStyle(
        is_baseline ? QCPScatterStyle::ssSquare : QCPScatterStyle::ssCircle, color, color, 7));
    double arm_lo = std::numeric_limits<double>::infinity(), arm_hi = 0;
    for (size_t i = 0; i < input.table.points.size(); ++i) {
      const auto& p = input.table.points[i];
      if (p.arm != fit.arm) continue;
      if (unused[i]) {
        others->addData(p.compute_flops, p.val_loss);
        any_unused = true;
        continue;
      }
      points->addData(p.compute_flops, p.val_loss);
      arm_lo = std::min(arm_lo, p.compute_flops);
      arm_hi = std::max(arm_hi, p.compute_flops);
    }
    // Fitted curve over the arm's rungs, extended a factor 3 each side, with its prediction band
    // (the bootstrap's pointwise percentiles of L(C) widened by the law's misfit,
    // fitting/prediction_interval.h) drawn faintly behind it.
    QCPGraph* band_hi = plot.addGraph();
    QCPGraph* band_lo = plot.addGraph();
    makeBand(*band_hi, *band_lo, color, 40);
    QCPGraph* curve = plot.addGraph();
    QPen pen(color, is_baseline ? 2.6 : 1.8);
    curve->setPen(pen);
    curves.push_back(curve);
    if (std::isfinite(fit.E) && std::isfinite(fit.A) && std::isfinite(fit.gamma) && arm_hi > 0) {
      const auto band = fitting::predictionBand(
          result, arm_index, fitting::logSpacedComputes(arm_lo / 3, arm_hi * 3, 121));
      for (const auto& p : band) {
        curve->addData(p.compute, p.value);
        if (std::isfinite(p.lo) && std::isfinite(p.hi) && p.lo > 0) {
          band_hi->addData(p.compute, p.hi);
          band_lo->addData(p.compute, p.lo);
        }
      }
      any_band = any_band || !band_hi->data()->isEmpty();
    }
    QString name = QString::fromStdString(fit.arm);
    if (is_baseline) name += QStringLiteral(" (baseline)");
    if (!fit.no_fit.empty()) name += QStringLiteral(": no fit (a loss at or below E)");
    if (std::isfinite(fit.gamma))
      name += QStringLiteral(": \u03B3 = %1").arg(compactNumber(fit.gamma, 3));
    // A standard error below 1e-4 (exact fixture data, float noise) reads as "< 1e-4", not
    // as a meaningless 7.2e-16.
    if (std::isfinite(fit.gamma_se))
      name += fit.gamma_se < 1e-4
                  ? QStringLiteral(" \u00B1 <1e-4")
                  : QStringLiteral(" \u00B1 %1").arg(compactNumber(fit.gamma_se, 2));
    if (!fit.at_bound.empty()) name += QStringLiteral("  [at bound]");
    points->setName(name);
    curve->removeFromLegend();
  }

  // Arms with points but no fit yet (a ladder still running): their points, hollow, named so.
  for (const std::string& arm : order) {
    const bool fitted = std::any_of(result.arms.begin(), result.arms.end(),
                                    [&](const fitting::ArmFit& f) { return f.arm == arm; });
    if (fitted) continue;
    QCPGraph* points = plot.addGraph();
    points->setLineStyle(QCPGraph::lsNone);
    const QColor color = colorOf(arm);
    points->setScatterStyle(QCPScatterStyle(
        arm == result.baseline ? QCPScatterStyle::ssSquare : QCPScatterStyle::ssCircle,
        QPen(color, 1.8), QBrush(Qt::NoBrush), 7));
    for (const auto& p : input.table.points)
      if (p.arm == arm) points->addData(p.compute_flops, p.val_loss);
    if (points->data()->isEmpty()) {
      plot.removeGraph(points);
      continue;
    }
    points->setName(QString::fromStdString(arm) +
                    (arm == result.baseline ? QStringLiteral(" (baseline)") : QString()) +
                    QStringLiteral(": not fitted yet"));
  }

  // Shared irreducible loss.
  double E = std::numeric_limits<double>::quiet_NaN();
  for (const auto& fit : result.arms)
    if (fit.arm == result.baseline) E = fit.E;
  const double x_lo = c_min / 4, x_hi = c_max * 4;
  if (std::isfinite(E) && E > 0) {
    QCPGraph* e_line = plot.addGraph();
    setReferenceLinePen(*e_line);
    e_line->addData(x_lo, E);
    e_line->addData(x_hi, E);
    e_line->setName(QStringLiteral("E = %1 (%2)")
                        .arg(compactNumber(E, 4))
                        .arg(result.joint ? QStringLiteral("joint") : QStringLiteral("shared")));
  }
  // Which estimator made the curves: a legend line with no symbol.
  if (!result.arms.empty()) {
    QCPGraph* estimator = plot.addGraph();
    estimator->setPen(Qt::NoPen);
    estimator->setName(QString::fromStdString(fitting::formLegendOf(result)));
    markLegendLineOptional(*estimator);
  }
  if (any_unused) {
    QCPGraph* key = plot.addGraph();
    key->setLineStyle(QCPGraph::lsNone);
    key->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(120, 120, 120, 160), 5));
    key->setName(QStringLiteral("other sweep points (not fitted)"));
  }
  if (any_band) {
    // One legend entry says what the shading is; each arm's band has its arm's colour.
    QCPGraph* key = plot.addGraph();
    key->setPen(Qt::NoPen);
    key->setBrush(QColor(120, 120, 120, 70));
    key->setName(std::isfinite(result.misfit.per_decade)
                     ? QStringLiteral("%1% prediction band (fit + misfit %2%/decade)")
                           .arg(qRound(result.ci_level * 100))
                           .arg(QString::number(100 * result.misfit.per_decade, 'f', 1))
                     : QStringLiteral("%1% fit band (bootstrap, %2 resamples; no misfit)")
                           .arg(qRound(result.ci_level * 100))
                           .arg(result.bootstrap_used));
    markLegendLineOptional(*key);
  }
  plot.xAxis->setRange(x_lo, x_hi);
  double y_lo = l_min, y_hi = l_max;
  if (std::isfinite(E) && E > 0) y_lo = std::min(y_lo, E);
  // The fitted curves run past the outer rungs: keep their visible part inside the rect (the
  // bands may leave it where the rungs end: they are context, not data).
  for (QCPGraph* g : curves)
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
      if (it->key >= x_lo && it->key <= x_hi && std::isfinite(it->value) && it->value > 0)
        y_hi = std::max(y_hi, it->value);
  plot.yAxis->setRange(y_lo / 1.05, y_hi * 1.05);
  // Loss falls with compute, so the data fills top-left and bottom-right: the legend goes to
  // the upper right or lower left, whichever covers less of the points, curves and bands.
  placeLegendInFreestCorner(plot, {Qt::AlignTop | Qt::AlignRight, Qt::AlignBottom | Qt::AlignLeft});
  plot.replot();
}

}  // namespace deepladder::plots
