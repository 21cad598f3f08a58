// One more sweep point beyond an edge: when a rung's best point sits at an end of a numeric axis
// of its sweep ("best at edge: extend the sweep"), the run at the next value past that end,
// planned like the ladder's own runs, for `suggest` and `run --adaptive` to buy. The next value
// continues the axis's outermost step: geometrically when the values are positive and their
// outer ratio is at least 1.5 (lr_mult 0.25, 0.5 -> 0.125), else arithmetically (weight_decay
// 0.3, 0.4 -> 0.5). Integer options round, and a value outside the option's range is clamped to
// it (beta2 0.95, 0.98 -> its maximum; no candidate when the end is the bound already).
#pragma once

#include <string>
#include <vector>

#include "core/ladder/ladder_spec.h"

namespace deepladder::ladder {

// The next value past an end of `values` (the end `low` or high), or nullopt-like: false when
// there is none (fewer than two values, a non-numeric option, the end at the option's bound).
bool valueBeyondEdge(const options::OptionSpec& option, std::vector<double> values, bool low,
                     options::OptionValue& beyond);

// For each edge, the planned run (the ladder's first seed) of the point that differs from the
// chosen one only in the edge axis's value, one step past the end; the point's other values are
// the chosen one's. Edges of arms or sizes the spec does not plan, and values the run options
// refuse, give no run.
std::vector<PlannedRun> sweepExtensionRuns(const LadderSpec& spec,
                                           const std::vector<SweepEdge>& edges);

}  // namespace deepladder::ladder
