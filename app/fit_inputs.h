// Inputs of `fit`, `export` and `plot`: the finished runs of a ladder (or an imported CSV source)
// read from the database, and the --at compute list. Shared wiring for those commands.
#pragma once

#include <string>
#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::storage {
class Database;
}

namespace deepladder::app {

// "1e20,1e22" -> {1e20, 1e22}; UserError for anything that is not a positive number.
std::vector<double> parseComputeList(const std::string& text);

// Finished runs of a ladder (arm, FLOPs, final loss, params, tokens), or the points of an
// imported CSV stored under that name (`deepladder import`).
fitting::ResultsTable readFromDatabase(storage::Database& db, const std::string& db_path,
                                       const std::string& ladder);

}  // namespace deepladder::app
