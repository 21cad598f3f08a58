// The one reader of results for fits: `fit`, `export`, `plot`, the workbench and the live
// projection all read a ladder's points here. A ladder's finished runs with a final loss (runs
// columns only, no metrics: arm, size, seed, training FLOPs, final loss, params, tokens, when it
// ended), in the order they ended; or, when no ladder has that name, the points of a results CSV
// imported under it (`deepladder import`).
#pragma once

#include <cstdint>
#include <string>

#include "core/results_table.h"
#include "storage/database.h"

namespace deepladder::storage {

// Throws UserError naming the database when there is nothing to fit. source = "<db_label>
// (ladder NAME)".
ResultsTable readResults(Database& db, const std::string& db_label,
                         const std::string& ladder_or_source);

// The finished runs of one ladder (possibly none), for a ladder that is still running.
ResultsTable ladderResults(Database& db, int64_t ladder_id, const std::string& source);

}  // namespace deepladder::storage
