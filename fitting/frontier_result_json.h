// A FrontierResult as JSON and back, every field (bootstrap draws included), so a cached fit
// rebuilds exactly: fromJson(toJson(r)) == r, NaN included (written as null). Not the export
// schema (fit_json.h is what `fit --json` prints); this is the fit cache's storage format.
#pragma once

#include <nlohmann/json.hpp>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

nlohmann::json frontierResultToJson(const FrontierResult& result);

// Throws std::runtime_error when `json` is not a frontierResultToJson object.
FrontierResult frontierResultFromJson(const nlohmann::json& json);

}  // namespace deepladder::fitting
