// The points scaling fits read from a database: the finished runs of a ladder (arm, training
// FLOPs, final loss, params, tokens), or, when no ladder has that name, the points of a results
// CSV imported under it (`deepladder import`). Shared by `fit`, `export`, `plot` and the GUI.
#pragma once

#include <string>
#include <vector>

#include "storage/database.h"

namespace deepladder::storage {

// Throws UserError naming the database when there is nothing to fit.
std::vector<ExternalPoint> resultPoints(Database& db, const std::string& db_label,
                                        const std::string& ladder_or_source);

}  // namespace deepladder::storage
