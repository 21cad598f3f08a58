// The adaptive ladder's next step (see adaptive_policy.h).
#include "fitting/adaptive_policy.h"

#include <cmath>
#include <cstdio>

namespace deepladder::fitting {

AdaptiveDecision decideAdaptive(const SuggestResult& s, const std::vector<double>& widths,
                                const AdaptiveBudget& b) {
  AdaptiveDecision d;
  char buf[200];
  if (b.until_width > 0 && !widths.empty()) {
    bool narrow = true;
    double widest = 0;
    for (double w : widths) {
      narrow = narrow && std::isfinite(w) && w < b.until_width;
      widest = std::max(widest, w);
    }
    if (narrow) {
      std::snprintf(buf, sizeof buf, "every interval at %.3g is narrower than %.3g (widest %.3g)",
                    s.target, b.until_width, widest);
      return {AdaptiveDecision::kStopWidth, -1, buf};
    }
  }
  const double left = b.budget_flops - b.spent_flops;
  bool blocked_by_slots = false;
  auto fits = [&](const Suggestion& c) {
    if (!(c.cost_flops <= left)) return false;
    if (c.candidate.run.config.train.ranks > b.free_slots) {
      blocked_by_slots = true;
      return false;
    }
    return true;
  };
  auto queue = [&](size_t i, const char* why) {
    std::snprintf(buf, sizeof buf, "%s: %s (%.3g of %.3g FLOPs left)",
                  s.ranked[i].candidate.run.name.c_str(), why, left, b.budget_flops);
    return AdaptiveDecision{AdaptiveDecision::kQueue, static_cast<int>(i), buf};
  };
  for (size_t i = 0; i < s.ranked.size(); ++i)
    if (s.ranked[i].needed && fits(s.ranked[i]))
      return queue(i, s.ranked[i].candidate.kind == ladder::CandidateKind::kSweepExtension
                          ? "needed: the rung's best sweep point is at an edge"
                          : "needed");
  if (s.seed_dof < kSeedScatterDof) {
    // The cheapest extra seed, when it is cheap next to the budget.
    int cheapest = -1;
    for (size_t i = 0; i < s.ranked.size(); ++i) {
      const Suggestion& c = s.ranked[i];
      if (c.candidate.kind == ladder::CandidateKind::kExtraSeed &&
          c.cost_flops <= kSeedProbeShare * b.budget_flops && fits(c) &&
          (cheapest < 0 || c.cost_flops < s.ranked[cheapest].cost_flops))
        cheapest = static_cast<int>(i);
    }
    if (cheapest >= 0)
      return queue(cheapest,
                   "measures the seed scatter (extra seeds cannot be valued before it is)");
  }
  for (size_t i = 0; i < s.ranked.size(); ++i) {
    const Suggestion& c = s.ranked[i];
    if (!fits(c)) continue;
    return queue(i, c.score > 0 ? "best narrowing per FLOP"
                                : "cheapest candidate (none expected to narrow the interval "
                                  "beyond its noise)");
  }
  if (blocked_by_slots) return {AdaptiveDecision::kWait, -1, "waiting for free slots"};
  std::snprintf(buf, sizeof buf, "budget spent: %.3g of %.3g FLOPs, no candidate fits in %.3g",
                b.spent_flops, b.budget_flops, left);
  return {AdaptiveDecision::kStopBudget, -1, buf};
}

}  // namespace deepladder::fitting
