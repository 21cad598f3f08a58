// What the plots read of one run besides the fits' points (those come from
// storage/result_points.h): a metric curve, read whole or through the metric pyramid at the
// resolution a plot's width needs; the run's logit-lens KL profiles by eval step; and the label
// a legend gives the run. Plain data (core/metric_curve.h, core/lens_depth.h), so ui/plots draws
// it without linking storage.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/lens_depth.h"
#include "core/metric_curve.h"
#include "storage/database.h"

namespace deepladder::storage {

// The run's metric `key` over steps [step_lo, step_hi]. pixels > 0: through the pyramid at the
// level that matches that many pixel columns (every row when zoomed in further than its finest
// level); pixels = 0: every row. No points when the run lacks the metric.
MetricCurve readRunCurve(Database& db, int64_t run_id, const std::string& key, int pixels = 0,
                         int64_t step_lo = INT64_MIN, int64_t step_hi = INT64_MAX);

// The run's lens rows grouped by step into profiles, in step order.
std::vector<LensProfile> lensProfiles(Database& db, int64_t run_id);

// "<arm>/<name> #id" ("<name> #id" when the name starts with its arm or it has none; "run #id"
// when the run is gone).
std::string runLabel(Database& db, int64_t run_id);

}  // namespace deepladder::storage
