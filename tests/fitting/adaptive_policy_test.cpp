// The adaptive ladder's policy on hand-made suggestion lists: it stops at the width before
// anything else, queues needed runs and the best resolved score that fits the budget and the
// free slots, buys the cheapest extra seed while the seed scatter is unmeasured, falls back to an
// unresolved narrowing, waits for slots, and stops at the budget.
#include "fitting/adaptive_policy.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace deepladder;
using namespace deepladder::fitting;

namespace {

Suggestion suggestion(const std::string& name, double cost, double narrowing, double score,
                      bool needed = false, int ranks = 1) {
  Suggestion s;
  s.candidate.run.name = name;
  s.candidate.run.config.train.ranks = ranks;
  s.cost_flops = cost;
  s.narrowing = narrowing;
  s.score = score;
  s.needed = needed;
  return s;
}

AdaptiveBudget budget(double total, double spent, double width = 0, int slots = 1) {
  AdaptiveBudget b;
  b.budget_flops = total;
  b.spent_flops = spent;
  b.until_width = width;
  b.free_slots = slots;
  return b;
}

}  // namespace

TEST(AdaptivePolicy, StopsOnceEveryIntervalIsNarrowerThanTheWidth) {
  SuggestResult s;
  s.ranked = {suggestion("a", 1, 0.5, 0.5)};
  EXPECT_EQ(decideAdaptive(s, {0.2, 0.3}, budget(10, 0, 0.4)).kind, AdaptiveDecision::kStopWidth);
  EXPECT_EQ(decideAdaptive(s, {0.2, 0.5}, budget(10, 0, 0.4)).kind, AdaptiveDecision::kQueue);
  EXPECT_EQ(decideAdaptive(s, {NAN}, budget(10, 0, 0.4)).kind, AdaptiveDecision::kQueue)
      << "an arm without an interval is not narrow";
}

TEST(AdaptivePolicy, QueuesTheTopSuggestionThatFitsTheBudgetAndTheSlots) {
  SuggestResult s;
  s.ranked = {suggestion("needed", 5, NAN, NAN, true), suggestion("best", 2, 1, 0.5),
              suggestion("wide", 1, 1, 0.4, false, 2), suggestion("cheap", 1, 0.1, 0.1)};
  AdaptiveDecision d = decideAdaptive(s, {}, budget(10, 0));
  ASSERT_EQ(d.kind, AdaptiveDecision::kQueue);
  EXPECT_EQ(d.chosen, 0) << "a needed run first";
  d = decideAdaptive(s, {}, budget(10, 6));  // 4 left: "needed" costs 5
  ASSERT_EQ(d.kind, AdaptiveDecision::kQueue);
  EXPECT_EQ(d.chosen, 1);
  d = decideAdaptive(s, {}, budget(10, 8.5));  // 1.5 left: "wide" needs 2 slots, 1 free
  ASSERT_EQ(d.kind, AdaptiveDecision::kQueue);
  EXPECT_EQ(d.chosen, 3);
  d = decideAdaptive(s, {}, budget(10, 8.5, 0, 2));
  EXPECT_EQ(d.chosen, 2);
}

TEST(AdaptivePolicy, SpendsTheBudgetEvenWhenNothingNarrowsBeyondItsNoise) {
  SuggestResult s;
  s.ranked = {suggestion("noisy", 2, 0.3, 0), suggestion("worse", 1, -0.1, 0)};
  const AdaptiveDecision d = decideAdaptive(s, {}, budget(10, 0));
  ASSERT_EQ(d.kind, AdaptiveDecision::kQueue);
  EXPECT_EQ(d.chosen, 0);
  EXPECT_NE(d.reason.find("beyond its noise"), std::string::npos) << d.reason;
}

TEST(AdaptivePolicy, MeasuresTheSeedScatterWithTheCheapestExtraSeedFirst) {
  SuggestResult s;
  s.ranked = {suggestion("needed", 5, NAN, NAN, true), suggestion("rung", 2, 1, 0.5),
              suggestion("dear seed", 0.5, 0, 0), suggestion("cheap seed", 0.05, 0, 0)};
  s.ranked[2].candidate.kind = s.ranked[3].candidate.kind = ladder::CandidateKind::kExtraSeed;
  AdaptiveDecision d = decideAdaptive(s, {}, budget(10, 0));
  EXPECT_EQ(d.chosen, 0) << "a needed run still comes first";
  s.ranked.erase(s.ranked.begin());
  d = decideAdaptive(s, {}, budget(10, 0));
  ASSERT_EQ(d.kind, AdaptiveDecision::kQueue);
  EXPECT_EQ(d.chosen, 2) << d.reason;
  EXPECT_NE(d.reason.find("seed scatter"), std::string::npos) << d.reason;
  d = decideAdaptive(s, {}, budget(2.5, 0));
  EXPECT_EQ(d.chosen, 0) << "a seed costing more than 1% of the budget is not bought to measure";
  s.seed_dof = kSeedScatterDof;
  d = decideAdaptive(s, {}, budget(10, 0));
  EXPECT_EQ(d.chosen, 0) << "once measured, seeds compete by score";
}

TEST(AdaptivePolicy, StopsAtTheBudgetAndWaitsForSlots) {
  SuggestResult s;
  s.ranked = {suggestion("a", 5, 1, 0.2), suggestion("b", 3, 1, 0.3, false, 4)};
  const AdaptiveDecision spent = decideAdaptive(s, {}, budget(10, 8));
  EXPECT_EQ(spent.kind, AdaptiveDecision::kStopBudget);
  EXPECT_NE(spent.reason.find("budget spent"), std::string::npos) << spent.reason;
  EXPECT_EQ(decideAdaptive(s, {}, budget(10, 6)).kind, AdaptiveDecision::kWait)
      << "b fits the budget but needs 4 slots";
  EXPECT_EQ(decideAdaptive(SuggestResult{}, {}, budget(10, 0)).kind, AdaptiveDecision::kStopBudget);
}
