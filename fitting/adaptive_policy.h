// How an adaptive ladder spends its budget (`deepladder run LADDER --adaptive --budget FLOPS
// [--until-width W]`): given the ranked suggestions, what is left of the budget and the free
// slots, queue the top suggestion that fits, or stop. Pure: the runner (app/) and the simulation
// benchmark (tests/bench/live_ladder_bench.cpp) share it.
#pragma once

#include <string>
#include <vector>

#include "fitting/suggest.h"

namespace deepladder::fitting {

struct AdaptiveBudget {
  double budget_flops = 0;  // total the ladder may spend (runs it queued, finished or not)
  double spent_flops = 0;   // planned FLOPs of every run it queued so far
  double until_width = 0;   // stop once every counted arm's interval is narrower (0 = never)
  int free_slots = 1;       // slots free now
};

struct AdaptiveDecision {
  enum Kind { kQueue, kWait, kStopBudget, kStopWidth } kind = kWait;
  int chosen = -1;     // index into SuggestResult::ranked when kQueue
  std::string reason;  // one line for the log and the decisions table
};

// Until the seed scatter is measured (SuggestResult::seed_dof < kSeedScatterDof), suggest cannot
// value an extra seed (suggest.h); the adaptive loop buys the cheapest extra seed to measure it
// when that seed costs at most kSeedProbeShare of the budget.
constexpr double kSeedProbeShare = 0.01;

// `widths`: the counted arms' current interval widths (hi - lo at the target, the ladder's live
// fit). Rules, in order: every width < until_width -> stop (width); a needed run that fits (costs
// at most what is left, needs no more slots than are free) -> queue it; the seed scatter not
// measured yet -> the cheapest extra seed that fits and costs at most kSeedProbeShare of the
// budget; else the top ranked suggestion that fits (by score, then the cheapest of the rest),
// even when its expected narrowing is within its noise (the budget is there to be spent); one
// that would fit the budget but not the free slots -> wait; nothing within the budget -> stop
// (budget).
AdaptiveDecision decideAdaptive(const SuggestResult& suggestions, const std::vector<double>& widths,
                                const AdaptiveBudget& budget);

}  // namespace deepladder::fitting
