// Reading what the plots show out of the database: a ladder's finished runs as a results
// table (the same rule as `deepladder fit`: finished runs with a final loss, else an imported
// source of that name), metric curves of runs against step/tokens/FLOPs, and lens profiles.
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

// UserError when the ladder has no finished runs and no imported source has that name.
fitting::ResultsTable resultsFromDatabase(storage::Database& db, const std::string& db_label,
                                          const std::string& ladder);

// One run's metric `key` as a curve; label "<arm>/<name> #id". Empty when the run lacks it.
CurveSeries curveFromDatabase(storage::Database& db, int64_t run_id, const std::string& key,
                              CurveAxis axis);

// The run's lens rows grouped by step into profiles.
std::vector<LensProfile> lensFromDatabase(storage::Database& db, int64_t run_id);

// "<arm>/<name> #id" (or "run #id" when the run is gone).
QString runLabel(storage::Database& db, int64_t run_id);

}  // namespace deepladder::plots
