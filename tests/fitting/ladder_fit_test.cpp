// The ladder's fit from cached per-arm shares: equal to the whole fit, refreshed one arm at a
// time, reused from the cache when nothing changed, lenient while arms have too few rungs; and
// the cache's JSON round trip.
#include "fitting/ladder_fit.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "fitting/frontier_fit.h"
#include "fitting/frontier_result_json.h"
#include "fitting/live_projection.h"
#include "fitting/projection_history.h"
#include "tests/fitting/memory_fit_cache.h"
#include "tests/fitting/synthetic_data.h"

using namespace deepladder;
using namespace deepladder::fitting;
using deepladder::fitting::testing::MemoryFitCache;

namespace {

// Three arms, 6 rungs each, 0.3% noise.
ResultsTable threeArms() {
  return fitting::testing::syntheticLadder(
      {{"vanilla", 1.8, 1.2, 0.111}, {"deep", 1.8, 1.15, 0.117}, {"loop", 1.8, 1.18, 0.114}}, 6,
      0.003, 7);
}

FrontierOptions quick() {
  FrontierOptions o = defaultFrontierOptions();
  o.bootstrap = 200;
  return o;
}

const ArmFit& armOf(const FrontierResult& r, const std::string& arm) {
  for (const auto& f : r.arms)
    if (f.arm == arm) return f;
  throw std::runtime_error("no arm " + arm);
}

}  // namespace

TEST(LadderFit, AShareFittedAloneIsItsShareOfTheWholeFit) {
  const ResultsTable table = threeArms();
  const FrontierResult whole = fitFrontier(table, quick());
  for (size_t a = 1; a < whole.arms.size(); ++a) {
    ResultsTable pair;
    pair.source = table.source;
    for (const auto& p : table.points)
      if (p.arm == "vanilla" || p.arm == whole.arms[a].arm) pair.points.push_back(p);
    const FrontierResult alone = fitFrontier(pair, quick());
    const FrontierResult split = shareOf(whole, a);
    SCOPED_TRACE(whole.arms[a].arm);
    ASSERT_EQ(alone.arms.size(), 2u);
    ASSERT_EQ(split.arms.size(), 2u);
    EXPECT_NEAR(alone.arms[1].gamma, split.arms[1].gamma, 1e-7);
    EXPECT_NEAR(alone.arms[1].gamma_ci_lo, split.arms[1].gamma_ci_lo, 1e-6);
    EXPECT_NEAR(alone.arms[1].gamma_ci_hi, split.arms[1].gamma_ci_hi, 1e-6);
    const auto& m_alone = alone.multipliers[0].projected.back();
    const auto& m_split = split.multipliers[0].projected.back();
    // The fit interval is the share's own; the prediction interval's misfit comes from the whole
    // ladder's nested backtest, so only the fit interval must agree.
    EXPECT_NEAR(m_alone.fit_lo, m_split.fit_lo, 1e-5 * m_split.fit_lo);
    EXPECT_NEAR(m_alone.fit_hi, m_split.fit_hi, 1e-5 * m_split.fit_hi);
    ASSERT_EQ(alone.bootstrap_draws.size(), split.bootstrap_draws.size());
    EXPECT_NEAR(alone.bootstrap_draws[5][1].gamma, split.bootstrap_draws[5][1].gamma, 1e-7);
  }
}

// Each share was a copy of the whole fit, trimmed; every replicate kept its
// room for all arms, so a ladder of N arms held N x N x replicates draws (24 GB at 3,331
// imported arms). A share holds its own two arms' draws and nothing more.
TEST(LadderFit, SharesHoldOnlyTheirOwnArmsDraws) {
  ResultsTable table;
  for (int a = 0; a < 40; ++a) {
    const std::string arm = a == 0 ? "vanilla" : "arm" + std::to_string(a);
    const ResultsTable one = fitting::testing::syntheticLadder(
        {{arm, 1.8, 1.2 - 0.001 * a, 0.111 + 0.0001 * a}}, 4, 0.003, 11 + a);
    table.points.insert(table.points.end(), one.points.begin(), one.points.end());
  }
  table.source = "synthetic";
  FrontierOptions o = quick();
  o.bootstrap = 50;
  const FrontierResult whole = fitFrontier(table, o);
  ASSERT_EQ(whole.arms.size(), 40u);
  const std::vector<FrontierResult> shares = splitIntoShares(whole);
  ASSERT_EQ(shares.size(), 39u);
  for (size_t a = 0; a < shares.size(); ++a) {
    const FrontierResult& share = shares[a];
    ASSERT_EQ(share.arms.size(), 2u);
    EXPECT_EQ(share.arms[1].arm, whole.arms[a + 1].arm);
    EXPECT_LE(share.arms.capacity(), 2u);
    EXPECT_LE(share.multipliers.capacity(), 1u);
    ASSERT_EQ(share.bootstrap_draws.size(), whole.bootstrap_draws.size());
    for (const auto& replicate : share.bootstrap_draws) EXPECT_LE(replicate.capacity(), 2u);
    EXPECT_EQ(share.bootstrap_draws[3][1].gamma, whole.bootstrap_draws[3][a + 1].gamma);
  }
  // The cached ladder fit assembles the same numbers from them.
  MemoryFitCache cache;
  LadderFitter fitter(&cache, "t");
  const FrontierResult assembled = fitter.fit(table, o, false);
  ASSERT_EQ(assembled.arms.size(), 40u);
  EXPECT_NEAR(assembled.arms[39].gamma, whole.arms[39].gamma, 1e-7);
}

TEST(LadderFit, SharesAssembleToTheWholeLaddersFit) {
  const ResultsTable table = threeArms();
  const FrontierResult whole = fitFrontier(table, quick());
  LadderFitter fitter(nullptr, "t");
  const FrontierResult shares = fitter.fit(table, quick(), false);
  ASSERT_EQ(shares.arms.size(), whole.arms.size());
  ASSERT_EQ(shares.bootstrap_draws.size(), whole.bootstrap_draws.size());
  for (size_t a = 0; a < whole.arms.size(); ++a) {
    EXPECT_EQ(shares.arms[a].arm, whole.arms[a].arm);
    EXPECT_NEAR(shares.arms[a].gamma, whole.arms[a].gamma, 1e-7);
    EXPECT_NEAR(shares.arms[a].A, whole.arms[a].A, 1e-6);
    // Each arm resamples from its own stream: same replicates in both, so the same interval.
    EXPECT_NEAR(shares.arms[a].gamma_ci_lo, whole.arms[a].gamma_ci_lo, 1e-6);
    EXPECT_NEAR(shares.arms[a].gamma_ci_hi, whole.arms[a].gamma_ci_hi, 1e-6);
  }
  for (size_t m = 0; m < whole.multipliers.size(); ++m)
    for (size_t k = 0; k < whole.multipliers[m].projected.size(); ++k) {
      const auto& w = whole.multipliers[m].projected[k];
      const auto& s = shares.multipliers[m].projected[k];
      EXPECT_NEAR(s.multiplier, w.multiplier, 1e-6 * w.multiplier);
      EXPECT_NEAR(s.ci_lo, w.ci_lo, 1e-5 * w.ci_lo);
      EXPECT_NEAR(s.ci_hi, w.ci_hi, 1e-5 * w.ci_hi);
    }
}

TEST(LadderFit, RefreshAfterAFinishedRunChangesExactlyThatArmsFit) {
  ResultsTable table = threeArms();
  LadderFitter fitter(nullptr, "t");
  const FrontierResult before = fitter.fit(table, quick(), true);
  EXPECT_EQ(fitter.refitted().size(), 2u);  // first fit: both shares

  // A run of "deep" finishes.
  RunPoint p;
  p.arm = "deep";
  p.compute_flops = 3e20;
  p.val_loss = frontierLoss(3e20, 1e18, 1.8, 1.15, 0.117) * 1.002;
  table.points.push_back(p);
  const FrontierResult after = fitter.fit(table, quick(), true);
  ASSERT_EQ(fitter.refitted(), std::vector<std::string>{"deep"});
  EXPECT_NE(armOf(after, "deep").gamma, armOf(before, "deep").gamma);
  EXPECT_EQ(armOf(after, "deep").n_points, 7);
  // Every other arm's fit is the very same numbers.
  for (const std::string arm : {"vanilla", "loop"}) {
    EXPECT_EQ(armOf(after, arm).gamma, armOf(before, arm).gamma) << arm;
    EXPECT_EQ(armOf(after, arm).A, armOf(before, arm).A) << arm;
    EXPECT_EQ(armOf(after, arm).gamma_ci_lo, armOf(before, arm).gamma_ci_lo) << arm;
  }
  EXPECT_EQ(after.multipliers[1].projected.back().ci_hi,
            before.multipliers[1].projected.back().ci_hi);  // loop's interval untouched

  // Nothing changed: nothing is refitted.
  fitter.fit(table, quick(), true);
  EXPECT_TRUE(fitter.refitted().empty());

  // A baseline run moves E, so every arm's share is refitted.
  RunPoint b = p;
  b.arm = "vanilla";
  b.val_loss = frontierLoss(3e20, 1e18, 1.8, 1.2, 0.111) * 0.999;
  table.points.push_back(b);
  fitter.fit(table, quick(), true);
  EXPECT_EQ(fitter.refitted(), (std::vector<std::string>{"deep", "loop"}));
}

TEST(LadderFit, CachedFitIsReusedAndInvalidatedWhenARunFinishes) {
  MemoryFitCache cache;
  ResultsTable table = threeArms();
  const FrontierResult first = LadderFitter(&cache, "t").fit(table, quick(), false);
  EXPECT_EQ(cache.saves, 2);

  // Another fitter (another process, a later `fit`) reuses both shares: no fitting at all.
  LadderFitter again(&cache, "t");
  const FrontierResult reused = again.fit(table, quick(), false);
  EXPECT_TRUE(again.refitted().empty());
  EXPECT_EQ(again.cacheHits(), 2);
  EXPECT_EQ(reused.arms[1].gamma, first.arms[1].gamma);
  EXPECT_EQ(reused.multipliers[0].projected[3].ci_lo, first.multipliers[0].projected[3].ci_lo);
  EXPECT_EQ(reused.bootstrap_draws.size(), first.bootstrap_draws.size());

  // Other options are another fit.
  FrontierOptions other = quick();
  other.c_ref = 1e19;
  LadderFitter third(&cache, "t");
  third.fit(table, other, false);
  EXPECT_EQ(third.refitted().size(), 2u);

  // A run of "loop" finishes: its entries go, "deep"'s stay; the next fit refits only loop.
  const size_t entries = cache.entries.size();
  cache.runFinished("loop");
  EXPECT_EQ(cache.entries.size(), entries - 2);  // loop's share under both option sets
  RunPoint p;
  p.arm = "loop";
  p.compute_flops = 2e20;
  p.val_loss = frontierLoss(2e20, 1e18, 1.8, 1.18, 0.114);
  table.points.push_back(p);
  LadderFitter fourth(&cache, "t");
  fourth.fit(table, quick(), false);
  EXPECT_EQ(fourth.refitted(), std::vector<std::string>{"loop"});
  EXPECT_EQ(fourth.cacheHits(), 1);
}

TEST(LadderFit, LenientFitLeavesOutArmsWithTooFewRungs) {
  ResultsTable table = threeArms();
  RunPoint lone;
  lone.arm = "wide";
  lone.compute_flops = 1e18;
  lone.val_loss = 3.0;
  table.points.push_back(lone);
  EXPECT_THROW(LadderFitter(nullptr, "t").fit(table, quick(), false), UserError);
  LadderFitter fitter(nullptr, "t");
  const FrontierResult r = fitter.fit(table, quick(), true);
  EXPECT_EQ(r.arms.size(), 3u);
  ASSERT_EQ(fitter.skipped().size(), 1u);
  EXPECT_EQ(fitter.skipped()[0].arm, "wide");
  EXPECT_NE(fitter.skipped()[0].reason.find("distinct compute"), std::string::npos);

  // Only two baseline rungs: nothing can be fitted, the reason names the baseline.
  ResultsTable early;
  early.source = "early";
  for (const auto& p : table.points)
    if (p.compute_flops < 4e17) early.points.push_back(p);
  LiveProjection live(nullptr, "early", quick(), 1e26);
  const ProjectionSnapshot s = live.refresh(early);
  EXPECT_FALSE(live.hasFit());
  EXPECT_NE(s.baseline_note.find("vanilla"), std::string::npos);
  EXPECT_NE(projectionLine(s).find("waiting"), std::string::npos);
}

TEST(LadderFit, LiveProjectionReportsEveryArmAtTheTarget) {
  const ResultsTable table = threeArms();
  LiveProjection live(nullptr, "t", quick(), 1e25);
  const ProjectionSnapshot s = live.refresh(table);
  ASSERT_EQ(s.arms.size(), 2u);
  EXPECT_EQ(s.runs, 18);
  for (const auto& a : s.arms) {
    EXPECT_LT(a.lo, a.multiplier);
    EXPECT_LT(a.multiplier, a.hi);
    EXPECT_EQ(a.points, 6);
  }
  const FrontierResult whole = fitFrontier(table, projectionOptions(quick(), 1e25));
  EXPECT_NEAR(s.arms[0].multiplier, whole.multipliers[0].projected.back().multiplier, 1e-6);
  EXPECT_NE(projectionLine(s).find("at 1e+25 FLOPs"), std::string::npos);
}

TEST(FrontierResultJson, RoundTripsEveryField) {
  const FrontierResult r = fitFrontier(threeArms(), quick());
  const std::string text = frontierResultToJson(r).dump();
  const FrontierResult back = frontierResultFromJson(nlohmann::json::parse(text));
  EXPECT_EQ(frontierResultToJson(back).dump(), text);
  EXPECT_EQ(back.arms[1].gamma_se, r.arms[1].gamma_se);
  EXPECT_TRUE(std::isnan(back.arms[1].E_ci_lo));  // E fixed for a non-baseline arm: NaN kept
  EXPECT_EQ(back.bootstrap_draws[17][2].gamma, r.bootstrap_draws[17][2].gamma);
  EXPECT_THROW(frontierResultFromJson(nlohmann::json::parse("{\"c_ref\": 1}")), std::runtime_error);
}

TEST(ProjectionHistory, OnePointPerFinishedRunCachedOnce) {
  // The runs end in rung order, vanilla and deep alternating.
  ResultsTable all = fitting::testing::syntheticLadder(
      {{"vanilla", 1.8, 1.2, 0.111}, {"deep", 1.8, 1.15, 0.117}}, 5, 0.003, 3);
  ResultsTable ordered;
  ordered.source = all.source;
  for (int i = 0; i < 5; ++i) {
    ordered.points.push_back(all.points[i]);
    ordered.points.push_back(all.points[5 + i]);
  }
  MemoryFitCache cache;
  const auto history = projectionHistory(ordered, quick(), 1e26, &cache, "t");
  ASSERT_EQ(history.size(), 10u);
  // After one run there is no arm to compare; the baseline needs three rungs and deep two, so
  // the first projection comes after five runs (v d v d v).
  EXPECT_TRUE(history[0].arms.empty());
  for (size_t k = 1; k < 4; ++k) {
    ASSERT_EQ(history[k].arms.size(), 1u) << k;
    EXPECT_TRUE(std::isnan(history[k].arms[0].multiplier)) << k;
    EXPECT_FALSE(history[k].arms[0].note.empty()) << k;
  }
  for (size_t k = 4; k < 10; ++k) EXPECT_TRUE(std::isfinite(history[k].arms[0].multiplier)) << k;
  EXPECT_EQ(history.back().runs, 10);
  EXPECT_LT(history[6].compute_spent, history[7].compute_spent);
  // The last point is the live projection of all the runs.
  LiveProjection live(nullptr, "t", quick(), 1e26);
  const auto now = live.refresh(ordered);
  EXPECT_NEAR(history.back().arms[0].multiplier, now.arms[0].multiplier,
              1e-9 * now.arms[0].multiplier);
  EXPECT_NEAR(history.back().arms[0].hi, now.arms[0].hi, 1e-9 * now.arms[0].hi);
  // Again: every point comes from the cache, nothing is fitted or stored.
  const int saves = cache.saves;
  const auto again = projectionHistory(ordered, quick(), 1e26, &cache, "t");
  EXPECT_EQ(cache.saves, saves);
  ASSERT_EQ(again.size(), 10u);
  EXPECT_EQ(again[8].arms[0].lo, history[8].arms[0].lo);
  // Points are never dropped when a run finishes (their entries name no arm).
  cache.runFinished("deep");
  EXPECT_EQ(projectionHistory(ordered, quick(), 1e26, &cache, "t").size(), 10u);
  EXPECT_EQ(cache.saves, saves);
}
