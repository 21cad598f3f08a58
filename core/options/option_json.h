// Run options to and from JSON (what the CLI hands a worker and what the runs table stores),
// driven by the schema: {"name", "task", "model": {...}, "data": {...}, "train": {...},
// "squaring": {...}}, enums by name.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "core/run_config.h"

namespace deepladder::options {

// Every option (or only the hashed ones, for the config hash), in schema order.
nlohmann::json encodeRunConfig(const RunConfig& config, bool hashed_only);

// The options of `json` on top of the defaults. Unknown sections and keys (with the nearest
// known name), wrong types and unknown enum names are UserErrors; nothing is validated beyond
// that (runConfigFromJson validates).
RunConfig decodeRunConfig(const nlohmann::json& json);

}  // namespace deepladder::options
