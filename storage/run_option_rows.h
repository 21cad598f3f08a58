// What Compare groups runs by and what a scatter puts on its axes, read from the runs table: every
// schema option of a run (core/run_option_values.h) plus "arm", "size", "seed" and "ladder" (the
// ladder's name; "" outside a ladder), as text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/run_grouping.h"
#include "storage/database.h"

namespace deepladder::storage {

// The names storage adds to the schema's options, in the order a chooser lists them.
const std::vector<std::string>& runRecordOptions();  // arm, size, ladder, seed

OptionValues runOptionRow(const RunRecord& run, const std::string& ladder_name);

// The rows of `ids`, in their order (a run that is gone gives an empty row).
std::vector<OptionValues> runOptionRows(Database& db, const std::vector<int64_t>& ids);

}  // namespace deepladder::storage
