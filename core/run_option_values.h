// A run's option values as text, for grouping runs and for putting an option on a plot's axis
// (run_grouping.h, scatter_spec.h): every option of the schema (core/options/option_schema.h) by
// its qualified name ("train.lr_mult"), read from the run's stored config JSON with the schema's
// defaults for what it leaves out. storage adds what the runs table knows (arm, size, seed,
// ladder; storage/run_option_rows.h).
#pragma once

#include <optional>
#include <string>

#include "core/run_grouping.h"

namespace deepladder {

// The schema options of `config_json` (as the runs table stores it), numbers in their shortest
// exact spelling ("0.5", "3", "1e-3"), words without quotes. A config that does not decode (an
// imported run's "{}" decodes to the defaults; a damaged one) gives no values at all rather than
// defaults that would pass for the run's own.
OptionValues schemaOptionValues(const std::string& config_json);

// The value as a number, when it is one ("0.5", "12", "3e-3"); nullopt for words and "".
std::optional<double> optionNumber(const std::string& value);

}  // namespace deepladder
