// The next larger sizes a ladder's size rule gives: for a depth ladder ([sizes] depths = [..]),
// the depth list continued with its last step (6, 8, .., 20 -> 22, 24), planned exactly like the
// ladder's own rungs (same budget rule, arm presets and recipe), so their FLOPs and hours are
// the ones `plan` would print. An explicit size list has no rule and gives no larger sizes.
#pragma once

#include <vector>

#include "core/ladder/ladder_spec.h"

namespace deepladder::ladder {

// For every arm, the planned runs (first seed of the ladder) of the `more` sizes just above the
// arm's largest size. Arms restricted to some sizes (`sizes = [..]`) continue from their own
// largest; a growth arm's crossover fraction for a new size is the one of its largest size; a
// per-rung FLOP budget continues with the ratio of its last two entries. Empty when the ladder
// has no depth rule or `more` <= 0.
std::vector<PlannedRun> largerSizeRuns(const LadderSpec& spec, int more);

}  // namespace deepladder::ladder
