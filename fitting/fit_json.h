// JSON forms of the fits, the schema of issue 5 (what `deepladder fit --json` prints):
// frontier: {"c_ref", "baseline", "arms": {arm: {"E","A","gamma","gamma_se","gamma_ci":[lo,hi],
//            "at_bound":[...]}}, "multipliers": {arm: {"measured":[{"compute","multiplier"}],
//            "projected":[{"compute","multiplier","ci":[lo,hi]}], "per_decade"}}}
// chinchilla: {"E","A","B","alpha","beta","objective","a","b"}.
// Non-finite numbers (a standard error with no degrees of freedom, an unreachable multiplier)
// are written as null, never as NaN. "at_bound" lists parameters that ended on a bound.
#pragma once

#include <nlohmann/json.hpp>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

nlohmann::json frontierToJson(const FrontierResult& result);
nlohmann::json chinchillaToJson(const ChinchillaFit& fit);

}  // namespace deepladder::fitting
