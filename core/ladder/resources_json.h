// A ladder's [resources] as JSON, as the ladders table stores it when the ladder is queued, so
// `resume` and the GUI run it on the same backend without re-reading the TOML.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "core/ladder/ladder_spec.h"

namespace deepladder::ladder {

nlohmann::json resourcesToJson(const Resources& resources);
// Missing keys keep their defaults (a ladder stored by an older deepladder).
Resources resourcesFromJson(const nlohmann::json& json);

}  // namespace deepladder::ladder
