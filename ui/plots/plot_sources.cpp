// Database reads for the plots (see plot_sources.h).
#include "ui/plots/plot_sources.h"

#include <cmath>

#include "core/errors.h"
#include "storage/database.h"

namespace deepladder::plots {

QString runLabel(storage::Database& db, int64_t run_id) {
  const auto run = db.run(run_id);
  if (!run) return QStringLiteral("run #%1").arg(run_id);
  QString label = QString::fromStdString(run->name);
  if (!run->arm.empty() && run->arm != "single" && run->name.rfind(run->arm, 0) != 0)
    label = QString::fromStdString(run->arm) + QLatin1Char('/') + label;
  return label + QStringLiteral(" #%1").arg(run_id);
}

CurveSeries curveFromDatabase(storage::Database& db, int64_t run_id, const std::string& key,
                              CurveAxis axis, int pixels, int64_t step_lo, int64_t step_hi) {
  CurveSeries series;
  series.label = runLabel(db, run_id);
  series.run_id = run_id;
  storage::MetricCurve curve;
  if (pixels > 0) {
    curve = db.readCurve(run_id, key, pixels, step_lo, step_hi);
  } else {
    curve.points = db.readMetricRange(run_id, key, step_lo, step_hi);
  }
  const auto& points = curve.points;
  series.bucket_steps = curve.bucket_steps;
  if (!points.empty() && curve.rows > 0)
    series.rows_per_point = static_cast<double>(curve.rows) / static_cast<double>(points.size());
  series.x.reserve(points.size());
  series.y.reserve(points.size());
  series.steps.reserve(points.size());
  for (const auto& p : points) {
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

std::vector<LensProfile> lensFromDatabase(storage::Database& db, int64_t run_id) {
  std::vector<LensProfile> profiles;
  for (const auto& row : db.lens(run_id)) {
    if (profiles.empty() || profiles.back().step != row.step) profiles.push_back({row.step, {}});
    auto& kl = profiles.back().kl;
    if (row.block >= 0) {
      if (static_cast<size_t>(row.block) >= kl.size())
        kl.resize(static_cast<size_t>(row.block) + 1, std::numeric_limits<double>::quiet_NaN());
      kl[static_cast<size_t>(row.block)] = row.kl;
    }
  }
  return profiles;
}

}  // namespace deepladder::plots
