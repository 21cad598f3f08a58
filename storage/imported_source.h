// An imported results source (`deepladder import`) stored under a name that `fit`, `export` and
// `plot` take as --ladder. The name must not be a trained ladder's (one name would then mean two
// sets of points, and --ladder NAME would read one of them without a word), and importing a name
// that is already imported replaces its points only when asked (`--replace`).
#pragma once

#include <string>
#include <vector>

#include "storage/database.h"

namespace deepladder::storage {

// Checks the name and stores the points in one transaction. Throws UserError (nothing written)
// when a ladder of this name (or hash) is in the database, or when `name` is already imported
// and `replace` is false.
void storeImportedSource(Database& db, const std::string& db_label, const std::string& name,
                         const std::vector<ExternalPoint>& points, bool replace);

}  // namespace deepladder::storage
