// The compute multiplier plot (see multiplier_plot.h).
#include "ui/plots/multiplier_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "fitting/fit_forms.h"
#include "fitting/frontier_band.h"
#include "fitting/frontier_model.h"
#include "fitting/prediction_interval.h"
#include "ui/plots/legend_fit.h"
#include "ui/plots/plot_style.h"

namespace deepladder::plots {

std::vector<double> multiplierBandComputes(double lo, double hi, int per_decade) {
  std::vector<double> out;
  if (!(lo > 0) || !(hi > lo) || per_decade < 1) return out;
  const double a = std::floor(std::log10(lo) * per_decade);
  const double b = std::ceil(std::log10(hi) * per_decade);
  for (double k = a; k <= b; k += 1.0) out.push_back(std::pow(10.0, k / per_decade));
  return out;
}

namespace {

// The multipliers drawn so far (curves and measured points, 1x included) and the band edges.
struct DrawnMultipliers {
  double lo = 1.0, hi = 1.0;
  std::vector<QCPGraph*> bands;  // upper and lower edges, clipped afterwards
};

// One arm: its projected curve with its prediction band (pointwise bootstrap percentiles of M(C)
// over the same resamples as the frontier band, widened by the misfit of both losses,
// fitting::multiplierPredictionBand; a result without the resamples, read from JSON say, falls
// back to the intervals at its projected computes), and its measured points.
void drawArmMultiplier(QCustomPlot& plot, const fitting::FrontierResult& result,
                       const fitting::ArmMultipliers& m, bool has_baseline,
                       const std::vector<double>& grid, double x_hi, const QColor& color,
                       DrawnMultipliers& drawn) {
  size_t arm_index = 0;
  for (size_t a = 0; a < result.arms.size(); ++a)
    if (result.arms[a].arm == m.arm) arm_index = a;
  QCPGraph* upper = plot.addGraph();
  QCPGraph* lower = plot.addGraph();
  QCPGraph* curve = plot.addGraph();
  const auto band = has_baseline && arm_index > 0
                        ? fitting::multiplierPredictionBand(result, arm_index, grid)
                        : std::vector<fitting::BandPoint>{};
  for (const auto& p : band) {
    if (std::isfinite(p.value)) {
      curve->addData(p.compute, p.value);
      drawn.hi = std::max(drawn.hi, p.value);
      drawn.lo = std::min(drawn.lo, p.value);
    }
    if (!std::isfinite(p.lo) || !std::isfinite(p.hi)) continue;
    upper->addData(p.compute, p.hi);
    lower->addData(p.compute, p.lo);
  }
  if (upper->data()->isEmpty())
    for (const auto& p : m.projected) {
      if (!std::isfinite(p.ci_lo) || !std::isfinite(p.ci_hi) || p.compute > x_hi * 1.0001) continue;
      upper->addData(p.compute, p.ci_hi);
      lower->addData(p.compute, p.ci_lo);
    }
  makeBand(*upper, *lower, color, 45);
  drawn.bands.push_back(upper);
  drawn.bands.push_back(lower);
  const bool has_band = !upper->data()->isEmpty();

  curve->setPen(QPen(color, 2.0));
  QString name = QString::fromStdString(m.arm) + QStringLiteral(" projected");
  if (std::isfinite(m.per_decade))
    name += QStringLiteral(" (\u00D7%1 per decade)").arg(QString::number(m.per_decade, 'f', 3));
  if (has_band)
    name += std::isfinite(result.misfit.per_decade)
                ? QStringLiteral(", %1% prediction band").arg(qRound(result.ci_level * 100))
                : QStringLiteral(", %1% fit band").arg(qRound(result.ci_level * 100));
  curve->setName(name);

  QCPGraph* measured = plot.addGraph();
  measured->setLineStyle(QCPGraph::lsNone);
  measured->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(color, 1.5), QBrush(Qt::white), 8));
  for (const auto& p : m.measured) {
    if (!std::isfinite(p.multiplier)) continue;
    measured->addData(p.compute, p.multiplier);
    drawn.hi = std::max(drawn.hi, p.multiplier);
    drawn.lo = std::min(drawn.lo, p.multiplier);
  }
  measured->setName(QString::fromStdString(m.arm) + QStringLiteral(" measured"));
  if (measured->data()->isEmpty()) measured->removeFromLegend();
}

// The axis follows the multipliers and their bands, but a band projected far from the data can
// span a hundred decades: its edges are clipped to kIntervalClip times beyond the multipliers
// (and 1x). Returns the y range drawn, the clip limits and whether anything was clipped.
struct YRange {
  double lo, hi;
  double clip_lo, clip_hi;
  bool clipped;
};
YRange clipBands(const DrawnMultipliers& drawn) {
  const double clip_lo = drawn.lo / kIntervalClip, clip_hi = drawn.hi * kIntervalClip;
  YRange range{drawn.lo, drawn.hi, clip_lo, clip_hi, false};
  for (QCPGraph* band : drawn.bands)
    for (auto it = band->data()->begin(); it != band->data()->end(); ++it) {
      range.clipped = range.clipped || it->value < clip_lo || it->value > clip_hi;
      it->value = std::clamp(it->value, clip_lo, clip_hi);
      range.lo = std::min(range.lo, it->value), range.hi = std::max(range.hi, it->value);
    }
  return range;
}

}  // namespace

void drawMultiplier(QCustomPlot& plot, const MultiplierPlotInput& input) {
  const auto& result = input.result;
  preparePlot(plot, input.title, QStringLiteral("baseline compute C (FLOPs)"),
              QStringLiteral("compute multiplier vs %1 (\u00D7)")
                  .arg(QString::fromStdString(result.baseline)));
  setLogAxis(*plot.xAxis);
  setLinearAxis(*plot.yAxis);

  const fitting::ArmFit* base = nullptr;
  for (const auto& f : result.arms)
    if (f.arm == result.baseline) base = &f;

  double x_lo = std::numeric_limits<double>::infinity();
  for (const auto& m : result.multipliers) {
    for (const auto& p : m.measured) x_lo = std::min(x_lo, p.compute);
    for (const auto& p : m.projected) x_lo = std::min(x_lo, p.compute);
  }
  if (input.compute_lo > 0) x_lo = input.compute_lo;
  if (!std::isfinite(x_lo)) x_lo = result.c_ref;
  const double x_hi = std::max(input.compute_hi, x_lo * 10);

  const auto grid = fitting::logSpacedComputes(x_lo, x_hi, 161);
  int index = 1;  // colour 0 is the baseline's in the frontier plot
  DrawnMultipliers drawn;
  for (const auto& m : result.multipliers)
    drawArmMultiplier(plot, result, m, base != nullptr, grid, x_hi, seriesColor(index++), drawn);
  const YRange y = clipBands(drawn);
  const double y_lo = y.lo, y_hi = y.hi, clip_lo = y.clip_lo, clip_hi = y.clip_hi;
  const bool clipped = y.clipped;
  // The 1x line: no advantage either way.
  QCPGraph* one = plot.addGraph();
  setReferenceLinePen(*one);
  one->addData(x_lo, 1.0);
  one->addData(x_hi, 1.0);
  one->setName(QStringLiteral("1\u00D7 (no gain)"));
  // Which estimator made the fits behind the projections: a legend line with no symbol.
  QCPGraph* estimator = plot.addGraph();
  estimator->setPen(Qt::NoPen);
  estimator->setName(QString::fromStdString(fitting::formLegendOf(result)));
  markLegendLineOptional(*estimator);
  if (clipped) {  // said in the legend, where it cannot hide behind it
    QCPGraph* note = plot.addGraph();
    note->setPen(Qt::NoPen);
    note->setObjectName(QStringLiteral("clip-note"));
    note->setName(QStringLiteral("band clipped to %1\u00D7\u2013%2\u00D7")
                      .arg(compactNumber(clip_lo), compactNumber(clip_hi)));
  }

  plot.xAxis->setRange(x_lo / 1.5, x_hi * 1.5);
  setRatioAxisRange(*plot.yAxis, y_lo, y_hi);  // with no arm but the baseline: 1x alone
  if (result.multipliers.empty()) {
    QCPItemText* note = new QCPItemText(&plot);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.75);
    note->setColor(plot.xAxis->labelColor());
    note->setText(QStringLiteral("no multiplier yet: no arm but the baseline is fitted"));
  }
  // The band widens to the right, away from the 1x line: usually the upper left stays free.
  placeLegendInFreestCorner(plot, {Qt::AlignTop | Qt::AlignLeft, Qt::AlignBottom | Qt::AlignRight,
                                   Qt::AlignBottom | Qt::AlignLeft});
  plot.replot();
}

}  // namespace deepladder::plots
