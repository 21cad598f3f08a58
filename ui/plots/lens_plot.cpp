// Logit-lens plots (see lens_plot.h).
#include "ui/plots/lens_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/lens_depth.h"
#include "ui/plots/plot_style.h"

namespace deepladder::plots {

void drawLens(QCustomPlot& plot, const LensPlotInput& input) {
  preparePlot(plot, input.title, QStringLiteral("block (0 = embedding)"),
              QStringLiteral("KL(final \u2016 lens) (nats)"));
  setLinearAxis(*plot.xAxis);
  setLinearAxis(*plot.yAxis);
  QSharedPointer<QCPAxisTickerFixed> blocks(new QCPAxisTickerFixed);
  blocks->setTickStep(1.0);
  blocks->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  plot.xAxis->setTicker(blocks);

  const size_t n = input.profiles.size();
  double y_hi = input.eps * 1.2;
  size_t max_blocks = 1;
  // Show at most 8 profiles (evenly spaced, always the last) so the picture stays readable.
  std::vector<size_t> shown;
  const size_t keep = std::min<size_t>(n, 8);
  for (size_t k = 0; k < keep; ++k) shown.push_back(keep == 1 ? n - 1 : (k * (n - 1)) / (keep - 1));
  shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
  for (size_t k = 0; k < shown.size(); ++k) {
    const auto& profile = input.profiles[shown[k]];
    const double t = shown.size() == 1 ? 1.0 : static_cast<double>(k) / (shown.size() - 1);
    const QColor color = QColor::fromHslF(0.6, 0.65, 0.78 - 0.5 * t);
    QCPGraph* g = plot.addGraph();
    g->setPen(QPen(color, k + 1 == shown.size() ? 2.4 : 1.4));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 4));
    for (size_t b = 0; b < profile.kl.size(); ++b) {
      if (!std::isfinite(profile.kl[b])) continue;
      g->addData(static_cast<double>(b), profile.kl[b]);
      y_hi = std::max(y_hi, profile.kl[b]);
    }
    max_blocks = std::max(max_blocks, profile.kl.size());
    g->setName(QStringLiteral("step %1").arg(profile.step));
  }

  QCPGraph* eps_line = plot.addGraph();
  setReferenceLinePen(*eps_line, 1.1);
  eps_line->addData(-0.5, input.eps);
  eps_line->addData(static_cast<double>(max_blocks) - 0.5, input.eps);
  eps_line->setName(QStringLiteral("\u03B5 = %1 nats").arg(input.eps));

  if (n > 0) {
    const auto& last = input.profiles.back();
    const auto depth = deepladder::lensDepth(last.kl, input.eps).depth;
    auto* label = new QCPItemText(&plot);
    label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    label->position->setType(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(0.98, 0.03);
    label->setPadding(QMargins(6, 4, 6, 4));
    label->setBrush(QBrush(QColor(255, 255, 255, 220)));
    label->setPen(QPen(QColor(160, 160, 160)));
    label->setText(depth ? QStringLiteral("d_lens = %1 at step %2").arg(*depth).arg(last.step)
                         : QStringLiteral("d_lens: none at step %1").arg(last.step));
    if (depth) {
      auto* line = new QCPItemStraightLine(&plot);
      line->setPen(QPen(QColor(213, 94, 0), 1.6, Qt::DashDotLine));
      line->point1->setCoords(*depth, 0);
      line->point2->setCoords(*depth, 1);
    }
  }
  plot.xAxis->setRange(-0.5, static_cast<double>(max_blocks) - 0.5);
  plot.yAxis->setRange(0, y_hi * 1.08);
  placeLegendInside(plot, Qt::AlignTop | Qt::AlignLeft);
  plot.replot();
}

void drawLensDepth(QCustomPlot& plot, const std::vector<LensDepthPoint>& points,
                   const QString& title) {
  preparePlot(plot, title, QStringLiteral("training compute C (FLOPs)"),
              QStringLiteral("d_lens (blocks)"));
  setLogAxis(*plot.xAxis);
  setLinearAxis(*plot.yAxis);
  std::map<std::string, std::vector<const LensDepthPoint*>> by_arm;
  double x_lo = 1e300, x_hi = 0, y_hi = 1;
  for (const auto& p : points) {
    if (!(p.compute > 0)) continue;
    by_arm[p.arm].push_back(&p);
    x_lo = std::min(x_lo, p.compute);
    x_hi = std::max(x_hi, p.compute);
    y_hi = std::max<double>(y_hi, p.d_lens);
  }
  int index = 0;
  for (auto& [arm, list] : by_arm) {
    std::sort(list.begin(), list.end(), [](auto* a, auto* b) { return a->compute < b->compute; });
    const QColor color = seriesColor(index++);
    QCPGraph* g = plot.addGraph();
    // Each arm also gets its own dash and marker, and later arms are drawn thinner, so arms
    // with the same d_lens stay visible on top of each other instead of hiding one another.
    static const Qt::PenStyle kDashes[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine,
                                           Qt::DashDotLine};
    static const QCPScatterStyle::ScatterShape kShapes[] = {
        QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
        QCPScatterStyle::ssDiamond};
    const int style = (index - 1) % 4;
    g->setPen(QPen(color, std::max(1.2, 3.0 - 0.6 * (index - 1)), kDashes[style]));
    g->setScatterStyle(QCPScatterStyle(kShapes[style], color, Qt::white, 9 - std::min(style, 2)));
    for (auto* p : list) g->addData(p->compute, p->d_lens);
    g->setName(QString::fromStdString(arm));
  }
  if (x_hi > 0) plot.xAxis->setRange(x_lo / 2, x_hi * 2);
  plot.yAxis->setRange(0, y_hi + 1);
  placeLegendRight(plot);
  plot.replot();
}

}  // namespace deepladder::plots
