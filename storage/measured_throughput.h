// Measured training speed by run shape, for the plan's time estimates (`plan --db`): every run
// in the database that logged tokens_per_s, grouped by core/ladder/memory_plan.h's
// throughputShapeKey of its config, averaged (the first logged value of each run, its warm-up,
// left out when it has more).
#pragma once

#include <map>
#include <string>

#include "storage/database.h"

namespace deepladder::storage {

// shape key -> mean tokens per second (over all ranks).
std::map<std::string, double> measuredTokensPerSecond(Database& db);

}  // namespace deepladder::storage
