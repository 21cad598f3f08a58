// Compare's grouped overlay (see grouped_curves.h).
#include "ui/workbench/grouped_curves.h"

#include <algorithm>
#include <cmath>

#include "ui/plots/decimation.h"

namespace deepladder::ui {

plots::CurvesPlotInput groupCurves(const plots::CurvesPlotInput& runs,
                                   const std::map<int64_t, OptionValues>& rows,
                                   const CurveGrouping& grouping) {
  plots::CurvesPlotInput out;
  out.metric = runs.metric;
  out.axis = runs.axis;
  out.log_x = runs.log_x;
  out.log_y = runs.log_y;
  out.title = runs.title;
  out.ema = 0.0;
  std::vector<OptionValues> values;
  values.reserve(runs.series.size());
  for (const auto& s : runs.series) {
    const auto it = rows.find(s.run_id);
    values.push_back(it == rows.end() ? OptionValues{} : it->second);
  }
  // Each run's curve as the overlay would draw it (smoothed as CurvesPlotInput::ema says).
  std::vector<std::vector<double>> smoothed(runs.series.size());
  if (grouping.ema > 0)
    for (size_t i = 0; i < runs.series.size(); ++i) {
      const auto& s = runs.series[i];
      smoothed[i] = plots::emaSmooth(s.y, std::pow(grouping.ema, std::max(1.0, s.rows_per_point)));
    }
  for (const RunGroup& g : groupRuns(values, grouping.by)) {
    std::vector<CurveRef> curves;
    for (size_t i : g.members)
      curves.push_back({&runs.series[i].x, grouping.ema > 0 ? &smoothed[i] : &runs.series[i].y});
    const CollapsedCurve c =
        collapseCurves(curves, grouping.band, grouping.grid_points, grouping.log_grid);
    if (c.x.empty()) continue;
    plots::CurveSeries s;
    s.label = QString::fromStdString(g.label) +
              (c.runs == 1 ? QStringLiteral(" (1 run)") : QStringLiteral(" (%1 runs)").arg(c.runs));
    s.x = c.x;
    s.y = c.mean;
    s.band_lo = c.lo;
    s.band_hi = c.hi;
    s.runs = c.runs;
    out.series.push_back(std::move(s));
  }
  return out;
}

}  // namespace deepladder::ui
