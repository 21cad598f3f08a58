// The points of the depth-sweep plot (`deepladder plot depth`): per finished run of a ladder with
// a final loss, its arm, the executed blocks of its final model (from the plan stored when it was
// queued) and its final validation loss. Qt-free, so the CLI and any view read them alike.
#pragma once

#include <string>
#include <vector>

#include "core/results_table.h"
#include "storage/database.h"

namespace deepladder::storage {

// RunPoint::arm, depth (executed blocks after growth) and val_loss (the final loss) are set.
// UserError naming the database (db_label) when there is no such ladder or it has no finished run
// with a final loss.
std::vector<RunPoint> depthSweepPoints(Database& db, const std::string& db_label,
                                       const std::string& ladder);

}  // namespace deepladder::storage
