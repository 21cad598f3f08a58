// What the plots read of one run besides the fits' points (storage/result_points.h) and its
// metric curves (Database::readCurve, into core/metric_curve.h): the run's logit-lens KL
// profiles by eval step and the label a legend gives the run. Plain data (core/lens_depth.h), so
// ui/plots draws it without linking storage.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/lens_depth.h"
#include "storage/database.h"

namespace deepladder::storage {

// The run's lens rows grouped by step into profiles, in step order.
std::vector<LensProfile> lensProfiles(Database& db, int64_t run_id);

// "<arm>/<name> #id" ("<name> #id" when the name starts with its arm or it has none; "run #id"
// when the run is gone).
std::string runLabel(Database& db, int64_t run_id);

}  // namespace deepladder::storage
