// Metric curves as plot series (see curve_series.h).
#include "ui/plots/curve_series.h"

namespace deepladder::plots {

CurveSeries curveSeries(const MetricCurve& curve, CurveAxis axis, const QString& label,
                        int64_t run_id) {
  CurveSeries series;
  series.label = label;
  series.run_id = run_id;
  const auto& points = curve.points;
  series.bucket_steps = curve.bucket_steps;
  if (!points.empty() && curve.rows > 0)
    series.rows_per_point = static_cast<double>(curve.rows) / static_cast<double>(points.size());
  series.x.reserve(points.size());
  series.y.reserve(points.size());
  series.steps.reserve(points.size());
  for (const MetricPoint& p : points) {
    switch (axis) {
      case CurveAxis::kStep:
        series.x.push_back(static_cast<double>(p.step));
        break;
      case CurveAxis::kTokens:
        series.x.push_back(static_cast<double>(p.tokens));
        break;
      case CurveAxis::kFlops:
        series.x.push_back(p.flops);
        break;
    }
    series.y.push_back(p.value);
    series.steps.push_back(p.step);
  }
  return series;
}

}  // namespace deepladder::plots
