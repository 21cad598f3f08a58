// Reading what the plots show out of the database besides the fits' points (those come from
// storage/result_points.h, like every fit's): metric curves of runs against step/tokens/FLOPs,
// and lens profiles.
#pragma once

#include <QString>
#include <cstdint>
#include <string>
#include <vector>

#include "fitting/fit_types.h"
#include "ui/plots/curves_plot.h"
#include "ui/plots/lens_plot.h"

namespace deepladder::storage {
class Database;
}

namespace deepladder::plots {

// One run's metric `key` as a curve; label "<arm>/<name> #id". Empty when the run lacks it.
// pixels > 0: read through the metric pyramid (storage/metric_pyramid.h) at the level that
// matches that many pixel columns across steps [step_lo, step_hi], every row when zoomed in
// further; pixels = 0: every row.
CurveSeries curveFromDatabase(storage::Database& db, int64_t run_id, const std::string& key,
                              CurveAxis axis, int pixels = 0, int64_t step_lo = INT64_MIN,
                              int64_t step_hi = INT64_MAX);

// The run's lens rows grouped by step into profiles.
std::vector<LensProfile> lensFromDatabase(storage::Database& db, int64_t run_id);

// "<arm>/<name> #id" (or "run #id" when the run is gone).
QString runLabel(storage::Database& db, int64_t run_id);

}  // namespace deepladder::plots
