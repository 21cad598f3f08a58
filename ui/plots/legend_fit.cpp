// Inside legends shrunk to their axis rect (see legend_fit.h).
#include "ui/plots/legend_fit.h"

#include <qcustomplot.h>

#include <algorithm>
#include <vector>

namespace deepladder::plots {
namespace {

constexpr const char* kOptional = "deepladder_legend_optional";
constexpr const char* kInstalled = "deepladder_legend_fit";
constexpr double kSmallestPoints = 6.5;
constexpr int kMarginPixels = 6;

bool tooWide(QCPLegend& legend, int room) {
  return legend.minimumOuterSizeHint().width() > room;
}

// The largest font size from `base` down that fits `room` (the smallest when none does).
double shrinkToFit(QCPLegend& legend, double base, int room) {
  QFont font = legend.font();
  double size = base;
  for (;;) {
    font.setPointSizeF(size);
    legend.setFont(font);
    if (!tooWide(legend, room) || size <= kSmallestPoints) return size;
    size = std::max(kSmallestPoints, size - 0.5);
  }
}

void fitOnce(QCustomPlot& plot, double base) {
  QCPLegend& legend = *plot.legend;
  if (!legend.visible() || legend.layout() != plot.axisRect()->insetLayout()) return;
  const int room = plot.axisRect()->width() - kMarginPixels;
  if (room <= 0) return;
  // What this layout placed: the legend at its font and lines before the fit.
  const double laid_out_size = legend.font().pointSizeF();
  size_t laid_out_shown = 0;
  std::vector<QCPAbstractPlottable*> optional;
  for (int i = 0; i < plot.plottableCount(); ++i) {
    QCPAbstractPlottable* p = plot.plottable(i);
    if (!p->property(kOptional).toBool()) continue;
    optional.push_back(p);
    if (legend.hasItemWithPlottable(p))
      ++laid_out_shown;
    else
      p->addToLegend();
  }
  double size = shrinkToFit(legend, base, room);
  size_t dropped = 0;
  for (auto it = optional.rbegin(); it != optional.rend() && tooWide(legend, room); ++it) {
    (*it)->removeFromLegend();
    ++dropped;
    size = shrinkToFit(legend, base, room);
  }
  // Draw again, laid out anew, when the fit changed what this layout placed.
  if (size != laid_out_size || optional.size() - dropped != laid_out_shown)
    plot.replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace

void markLegendLineOptional(QCPAbstractPlottable& plottable) {
  plottable.setProperty(kOptional, true);
}

void fitLegendToAxisRect(QCustomPlot& plot) {
  if (plot.property(kInstalled).toBool()) return;
  plot.setProperty(kInstalled, true);
  const double base = plot.legend->font().pointSizeF();
  QObject::connect(&plot, &QCustomPlot::afterLayout, &plot,
                   [p = &plot, base] { fitOnce(*p, base); });
}

}  // namespace deepladder::plots
