// Suggestions as text: the table `deepladder suggest` prints (rank, run, kind, cost in FLOPs and
// estimated hours, the target interval now and expected after, narrowing per FLOP, why) and the
// JSON of `suggest --json`, which is also what an adaptive ladder stores with each decision.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fitting/suggest.h"

namespace deepladder::fitting {

// {"target", "counted_arms", "width_before", "unfitted": [{"arm","reason"}],
//  "candidates": [{"run","arm","size","seed","kind","cost_flops","hours","needed","width_before",
//  "width_after","narrowing","narrowing_se","score","shown_arm","interval_before":[lo,hi],
//  "interval_after":[lo,hi],"draws_used","why"}]}, best first; undefined numbers are null.
// `limit` > 0 keeps only the first `limit` candidates.
nlohmann::json suggestionsToJson(const SuggestResult& result, int limit = 0);

// A Markdown table of the first `limit` suggestions (0 = all), with a header line.
std::string suggestionsMarkdown(const SuggestResult& result, int limit = 0);

}  // namespace deepladder::fitting
