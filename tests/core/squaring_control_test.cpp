// The serial task's positive control C1 (core/squaring/control_tiers.h): repeated squaring mod
// 177 = 3 x 59 with the whole single-squaring table in training. The generator's splits, answers
// and cohorts are checked against their definition, and so is what makes it a control: chaining
// training facts reaches every depth rung (learnable), while the answers at T = 8 and 16 are, for
// almost every x, none of the answers at a trained T (extrapolation is needed, not lookup).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "core/errors.h"
#include "core/run_config.h"
#include "core/squaring/baselines.h"
#include "core/squaring/control_tiers.h"
#include "core/squaring/dataset_io.h"
#include "core/squaring/run_dataset.h"
#include "core/squaring/semiprime.h"

namespace sq = deepladder::squaring;

namespace {

TEST(SquaringControl, C1IsASmallSemiprimeTrainedUpToT4AndTestedToT64) {
  const sq::TierPreset& c1 = sq::tierPreset("c1");
  EXPECT_TRUE(sq::isControlTier(c1));
  EXPECT_EQ(c1.fixedN(), 177u);
  EXPECT_EQ(c1.train_t, (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(c1.ood_t, 8);
  EXPECT_EQ(c1.depth_ladder, sq::depthLadder(64));
  EXPECT_TRUE(c1.ood_modulus_bits.empty());
  // The benchmark's tier list is unchanged; squaring.tier accepts the control too.
  const std::vector<std::string> benchmark = sq::tierNames();
  EXPECT_EQ(std::count(benchmark.begin(), benchmark.end(), "C1"), 0);
  EXPECT_EQ(sq::allTierNames().back(), "C1");
  EXPECT_FALSE(sq::isControlTier(sq::tierPreset("E1")));
  EXPECT_THROW(sq::generateControlDataset(sq::tierPreset("E1"), 1), deepladder::UserError);
}

TEST(SquaringControl, SplitsAnswersAndCohortsFollowTheDefinition) {
  const sq::TierPreset& c1 = sq::tierPreset("C1");
  const sq::TierDataset d = sq::generateTierDataset(c1, 1);
  EXPECT_EQ(d.tier, "C1");
  const size_t units = 116;  // phi(177) = 2 x 58
  // Every unit at T = 1; 92 of 116 (floor 0.8 x 116) at T = 2, 3, 4, the other 24 in test.
  EXPECT_EQ(d.train.size(), units + 3 * 92);
  EXPECT_EQ(d.test.size(), 3u * 24);
  EXPECT_EQ(d.ood_t.size(), units);
  EXPECT_EQ(d.depth_seen.size(), 7 * units);
  EXPECT_TRUE(d.depth_ood_n.empty());
  std::map<int64_t, std::set<uint64_t>> train_x, test_x;
  for (const auto& e : d.train) train_x[e.t].insert(e.x);
  for (const auto& e : d.test) test_x[e.t].insert(e.x);
  EXPECT_EQ(train_x[1].size(), units);
  EXPECT_EQ(test_x.count(1), 0u);
  for (int64_t t : {2, 3, 4}) {
    EXPECT_EQ(train_x[t].size() + test_x[t].size(), units) << t;
    for (uint64_t x : test_x[t]) EXPECT_EQ(train_x[t].count(x), 0u) << "T " << t << " x " << x;
  }
  for (const auto* set : {&d.train, &d.test, &d.ood_t, &d.depth_seen})
    for (const auto& e : *set) {
      ASSERT_EQ(e.n, 177u);
      ASSERT_EQ(e.z, sq::directSquaring(e.n, e.x, e.t)) << e.x << " " << e.t;
    }
  for (const auto& e : d.ood_t) EXPECT_EQ(e.t, 8);

  // Deterministic in the seed; another seed draws another test split.
  EXPECT_EQ(sq::generateTierDataset(c1, 1).test, d.test);
  EXPECT_NE(sq::generateTierDataset(c1, 2).test, d.test);
}

TEST(SquaringControl, EveryRungIsReachableByChainingButNotByLookup) {
  const sq::TierPreset& c1 = sq::tierPreset("C1");
  const sq::TierDataset d = sq::generateTierDataset(c1, 1);
  const auto closure = sq::tierCompositionClosure(c1, d);
  ASSERT_TRUE(closure);
  std::map<int64_t, std::vector<sq::Example>> rungs;
  for (const auto& e : d.depth_seen) rungs[e.t].push_back(e);
  for (const auto& [t, rung] : rungs) EXPECT_EQ(closure->ceiling(rung), 1.0) << "T " << t;

  // The answer at T = 8 / 16 equals an answer of the same x at a trained T for 4 of 116 x.
  for (int64_t deep : {8, 16}) {
    int repeats = 0;
    for (const auto& e : rungs[1]) {
      const uint64_t z = sq::directSquaring(e.n, e.x, deep);
      bool seen = false;
      for (int64_t t : c1.train_t) seen |= sq::directSquaring(e.n, e.x, t) == z;
      repeats += seen;
    }
    EXPECT_EQ(repeats, 4) << "T " << deep;
  }
}

TEST(SquaringControl, NativeFilesRoundTripThroughARunsDataDir) {
  const auto dir = std::filesystem::temp_directory_path() / "deepladder-control-c1";
  std::filesystem::remove_all(dir);
  const sq::TierPreset& c1 = sq::tierPreset("C1");
  const sq::TierDataset generated = sq::generateTierDataset(c1, 3);
  sq::writeTierDataset(dir.string(), c1, generated);
  deepladder::SquaringConfig c;
  c.tier = "C1";
  c.data_dir = dir.string();
  const sq::TierDataset read = sq::runDataset(c);
  EXPECT_EQ(read.tier, "C1");
  EXPECT_EQ(read.train, generated.train);
  EXPECT_EQ(read.test, generated.test);
  EXPECT_EQ(read.ood_t, generated.ood_t);
  EXPECT_EQ(read.depth_seen, generated.depth_seen);
  std::filesystem::remove_all(dir);
}

}  // namespace
