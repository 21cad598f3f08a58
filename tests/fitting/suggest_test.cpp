// Suggest on the published growth ladder cut at depth 12 (vanilla and untied_grow, 4 rungs
// each, one seed): the missing largest rungs rank above extra seeds of the small ones, the ranking
// is the same under a seed whatever the thread count, the budget leaves out dear runs, and an arm
// with too few rungs asks for the rungs it needs first.
#include "fitting/suggest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "fitting/suggest_draws.h"
#include "tests/fitting/published_growth_ladder.h"

using namespace deepladder;
using namespace deepladder::fitting;
using deepladder::fitting::testing::publishedGrowthLadder;
using deepladder::fitting::testing::publishedTable;

namespace {

ladder::CandidateRun candidate(ladder::CandidateKind kind, const std::string& arm, int depth,
                               int64_t seed, double flops) {
  ladder::CandidateRun c;
  c.kind = kind;
  c.run.arm = arm;
  c.run.size = "d" + std::to_string(depth);
  c.run.seed = seed;
  c.run.name = arm + "-" + c.run.size + "-s" + std::to_string(seed);
  c.run.flops = flops;
  c.run.est_seconds = flops / 4e14;
  return c;
}

// Grid rungs deeper than `have` not yet run, and a second seed of every rung run so far.
std::vector<ladder::CandidateRun> candidatesAbove(int have) {
  std::vector<ladder::CandidateRun> out;
  for (const auto& r : publishedGrowthLadder())
    out.push_back(candidate(
        r.depth > have ? ladder::CandidateKind::kGridRung : ladder::CandidateKind::kExtraSeed,
        r.arm, r.depth, r.depth > have ? 1 : 2, r.compute_flops));
  return out;
}

SuggestOptions rankingOptions() {
  SuggestOptions o = defaultSuggestOptions();
  o.draws = 8;
  o.fit.bootstrap = 100;
  return o;
}

}  // namespace

TEST(Suggest, PrefersTheMissingLargestRungsOverExtraSeedsOfSmallOnes) {
  const SuggestResult r = suggestRuns(publishedTable(12), candidatesAbove(12), rankingOptions());
  ASSERT_EQ(r.counted_arms, std::vector<std::string>{"untied_grow"});
  ASSERT_EQ(r.ranked.size(), 15u);
  EXPECT_TRUE(std::isnan(r.seed_share));
  EXPECT_GT(r.width_before, 0);
  // With the baseline at four rungs its extrapolation dominates the interval: its missing
  // largest rungs come first (a baseline run moves the arm's multiplier too).
  const Suggestion& top = r.ranked.front();
  EXPECT_EQ(top.candidate.kind, ladder::CandidateKind::kGridRung) << top.candidate.run.name;
  EXPECT_GT(std::stoi(top.candidate.run.size.substr(1)), 12) << top.candidate.run.name;
  EXPECT_GT(top.narrowing, 0);
  EXPECT_LT(top.after_hi - top.after_lo, top.before_hi - top.before_lo);
  EXPECT_NE(top.why.find("extends"), std::string::npos) << top.why;
  double worst_large_baseline = HUGE_VAL, best_small_seed = -HUGE_VAL;
  for (const auto& s : r.ranked) {
    ASSERT_TRUE(std::isfinite(s.score)) << s.candidate.run.name << ": " << s.why;
    if (s.candidate.kind == ladder::CandidateKind::kExtraSeed) {
      // One seed per rung: the seed scatter is not measured, so a seed is taken to repeat its
      // rung's deviation and is not refitted.
      EXPECT_EQ(s.narrowing, 0) << s.candidate.run.name;
      EXPECT_NE(s.why.find("not measured"), std::string::npos) << s.why;
    } else {
      EXPECT_EQ(s.draws_used, rankingOptions().draws) << s.candidate.run.name;
    }
    EXPECT_FALSE(s.why.empty());
    const int depth = std::stoi(s.candidate.run.size.substr(1));
    if (depth > 12 && s.candidate.run.arm == "vanilla")
      worst_large_baseline = std::min(worst_large_baseline, s.score);
    if (depth <= 8 && s.candidate.kind == ladder::CandidateKind::kExtraSeed)
      best_small_seed = std::max(best_small_seed, s.score);
  }
  EXPECT_GT(worst_large_baseline, 0);
  EXPECT_GT(worst_large_baseline, best_small_seed);
}

// The published ladder to d12 with seeds 2 and 3 of both arms' d6 and d8 rungs, each seed off its
// rung's loss by `spread` times +-1 (8 degrees of freedom of seed scatter).
ResultsTable withSeeds(double spread) {
  ResultsTable t = publishedTable(12);
  const std::vector<RunPoint> first = t.points;
  for (const RunPoint& p : first) {
    if (p.depth > 8) continue;
    for (int seed : {2, 3}) {
      RunPoint q = p;
      q.seed = seed;
      q.val_loss += spread * (seed == 2 ? 1.0 : -1.0);
      t.points.push_back(q);
    }
  }
  return t;
}

// Candidates: a fourth seed of the d6 and d8 rungs of both arms.
std::vector<ladder::CandidateRun> fourthSeeds() {
  std::vector<ladder::CandidateRun> out;
  for (const auto& r : publishedGrowthLadder())
    if (r.depth <= 8)
      out.push_back(
          candidate(ladder::CandidateKind::kExtraSeed, r.arm, r.depth, 4, r.compute_flops));
  return out;
}

TEST(Suggest, AnExtraSeedIsWorthTheSeedsMeasuredShareOfTheScatter) {
  // Seeds that scatter as much as the runs do around the laws: a share near 1, and an extra seed
  // narrows the interval like a new point.
  const SuggestResult independent = suggestRuns(withSeeds(0.02), fourthSeeds(), rankingOptions());
  EXPECT_EQ(independent.seed_dof, 8);
  EXPECT_GT(independent.seed_share, 0.9);
  // Seeds that agree to 1e-5 nats: the share is near 0, a seed adds nothing.
  const SuggestResult shared = suggestRuns(withSeeds(1e-5), fourthSeeds(), rankingOptions());
  EXPECT_LT(shared.seed_share, 1e-3);
  double best_independent = 0;
  for (const auto& s : independent.ranked) {
    EXPECT_NE(s.why.find("seed 4 of a rung"), std::string::npos) << s.why;
    best_independent = std::max(best_independent, s.narrowing);
  }
  EXPECT_GT(best_independent, 0.0);
  for (const auto& s : shared.ranked)
    EXPECT_LT(std::fabs(s.narrowing), 0.01 * best_independent) << s.candidate.run.name;
}

// Fewer draws and resamples: these check determinism and filtering, not the ranking's quality.
SuggestOptions cheap() {
  SuggestOptions o = rankingOptions();
  o.draws = 4;
  o.fit.bootstrap = 40;
  return o;
}

TEST(Suggest, SuggestionsAreDeterministicUnderASeed) {
  auto o = cheap();
  o.threads = 1;
  const SuggestResult a = suggestRuns(publishedTable(12), candidatesAbove(12), o);
  o.threads = 2;
  const SuggestResult b = suggestRuns(publishedTable(12), candidatesAbove(12), o);
  ASSERT_EQ(a.ranked.size(), b.ranked.size());
  for (size_t i = 0; i < a.ranked.size(); ++i) {
    EXPECT_EQ(a.ranked[i].candidate.run.name, b.ranked[i].candidate.run.name);
    EXPECT_EQ(a.ranked[i].score, b.ranked[i].score);
    EXPECT_EQ(a.ranked[i].width_after, b.ranked[i].width_after);
    EXPECT_EQ(a.ranked[i].why, b.ranked[i].why);
  }
  o.seed = 7;
  const SuggestResult c = suggestRuns(publishedTable(12), candidatesAbove(12), o);
  bool differs = false;
  for (size_t i = 0; i < c.ranked.size(); ++i)
    for (const auto& s : a.ranked)
      if (s.candidate.run.name == c.ranked[i].candidate.run.name)
        differs = differs || s.width_after != c.ranked[i].width_after;
  EXPECT_TRUE(differs) << "another seed draws other outcomes";
}

TEST(Suggest, BudgetLeavesOutRunsThatCostMore) {
  auto o = cheap();
  o.budget = 2e19;
  const SuggestResult r = suggestRuns(publishedTable(12), candidatesAbove(12), o);
  ASSERT_FALSE(r.ranked.empty());
  for (const auto& s : r.ranked) EXPECT_LE(s.cost_flops, 2e19) << s.candidate.run.name;
}

TEST(Suggest, AnArmWithTooFewRungsAsksForThemFirst) {
  ResultsTable t = publishedTable(14);
  // untied_grow has only its d6 run so far.
  t.points.erase(
      std::remove_if(t.points.begin(), t.points.end(),
                     [](const RunPoint& p) { return p.arm == "untied_grow" && p.depth > 6; }),
      t.points.end());
  const SuggestResult r = suggestRuns(t, candidatesAbove(14), rankingOptions());
  ASSERT_FALSE(r.ranked.empty());
  EXPECT_TRUE(r.ranked.front().needed);
  EXPECT_EQ(r.ranked.front().candidate.run.arm, "untied_grow");
  EXPECT_EQ(r.ranked.front().candidate.run.size, "d8") << "the cheapest rung it lacks";
  ASSERT_EQ(r.unfitted.size(), 1u);
  EXPECT_EQ(r.unfitted[0].arm, "untied_grow");
}

TEST(SuggestDraws, ALatinHypercubeOverReplicateRankAndDeviate) {
  EXPECT_NEAR(normalQuantile(0.975), 1.959963985, 1e-6);
  EXPECT_NEAR(normalQuantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(normalQuantile(0.01), -normalQuantile(0.99), 1e-12);
  const auto draws = commonDraws(42, 8);
  ASSERT_EQ(draws.size(), 8u);
  std::vector<int> u_count(8, 0), z_count(8, 0);
  for (const auto& d : draws) {
    ++u_count[static_cast<int>(d.u * 8)];
    int stratum = 0;
    while (stratum < 7 && d.z > normalQuantile((stratum + 1) / 8.0)) ++stratum;
    ++z_count[stratum];
  }
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(u_count[k], 1) << k;
    EXPECT_EQ(z_count[k], 1) << k;
  }
  const auto again = commonDraws(42, 8);
  EXPECT_EQ(again[3].z, draws[3].z);
  EXPECT_NE(commonDraws(43, 8)[3].u, draws[3].u);
}

TEST(Suggest, APointPastASweepsEdgeComesFirst) {
  auto o = cheap();
  auto candidates = candidatesAbove(12);
  // vanilla d8's best learning rate was the smallest tried: one step past it, costing what the
  // rung costs.
  ladder::CandidateRun past = candidates.front();
  for (const auto& c : candidates)
    if (c.run.arm == "vanilla" && c.run.size == "d8") past = c;
  past.kind = ladder::CandidateKind::kSweepExtension;
  past.run.sweep_label = "lr_mult0.125";
  past.run.name += "-lr_mult0.125";
  candidates.push_back(past);
  const SuggestResult r = suggestRuns(publishedTable(12), candidates, o);
  ASSERT_FALSE(r.ranked.empty());
  const Suggestion& first = r.ranked.front();
  EXPECT_EQ(first.candidate.kind, ladder::CandidateKind::kSweepExtension);
  EXPECT_TRUE(first.needed);
  EXPECT_NE(first.why.find("edge"), std::string::npos) << first.why;
  EXPECT_NE(first.why.find("lr_mult0.125"), std::string::npos) << first.why;
}
