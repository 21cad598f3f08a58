// The scheduler's order (storage/run_store_sqlite.h): every rung's centre sweep point at its first
// seed opens the rung and starts before any other run: the biggest opener, then each arm's three
// smallest openers (smallest first), then the other openers, then the other points of each arm's
// two smallest rungs (smallest first), and then the other runs, biggest first. Those two
// smallest rungs of each arm are the calibration rungs halving never judges.
#include <gtest/gtest.h>

#include "storage/database.h"
#include "storage/run_store_sqlite.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

using testing::TempDir;

RunRecord point(int64_t id, const std::string& size, int64_t seed, const std::string& label) {
  RunRecord r;
  r.id = id;
  r.ladder_id = 1;
  r.arm = "vanilla";
  r.size = size;
  r.seed = seed;
  r.name = "vanilla-" + size + "-s" + std::to_string(seed) + (label.empty() ? "" : "-" + label);
  return r;
}

TEST(RungOpeners, CentreSweepPointAtTheFirstSeedOfEveryRung) {
  std::vector<RunRecord> runs;
  int64_t id = 1;
  for (const std::string size : {"d3", "d4"})
    for (const int64_t seed : {1, 2})
      for (const std::string label : {"lr_mult0.5", "lr_mult1", "lr_mult2"})
        runs.push_back(point(id++, size, seed, label));
  const std::set<int64_t> openers = rungOpeners(runs);
  ASSERT_EQ(openers.size(), 2u);
  for (const int64_t o : openers) {
    const RunRecord& r = runs[size_t(o - 1)];
    EXPECT_EQ(r.seed, 1);
    EXPECT_NE(r.name.find("lr_mult1"), std::string::npos) << r.name;
    EXPECT_EQ(r.name.find("lr_mult1."), std::string::npos) << r.name;
  }
}

TEST(RungOpeners, NumericOrderNotTextOrderAndLowerMiddleOfAnEvenCount) {
  // Text order would put 10 before 2; the values 0.25 0.5 2 10 have 0.5 as lower middle.
  std::vector<RunRecord> runs = {point(1, "d3", 1, "lr_mult10"), point(2, "d3", 1, "lr_mult2"),
                                 point(3, "d3", 1, "lr_mult0.25"), point(4, "d3", 1, "lr_mult0.5")};
  EXPECT_EQ(rungOpeners(runs), (std::set<int64_t>{4}));
}

TEST(RungOpeners, PendingStartsOpenersBeforeBiggerRuns) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t ladder = db->upsertLadder("quick", "spec", "h");
  int64_t big_edge = 0, small_centre = 0;
  for (const auto& [size, flops] : {std::pair{"d3", 1e12}, std::pair{"d7", 1e14}})
    for (const std::string label : {"lr_mult0.5", "lr_mult1", "lr_mult2"}) {
      RunRecord r = point(0, size, 1, label);
      r.ladder_id = ladder;
      r.plan.flops = flops;
      const int64_t id = db->insertRun(r);
      if (std::string(size) == "d7" && label == "lr_mult2") big_edge = id;
      if (std::string(size) == "d3" && label == "lr_mult1") small_centre = id;
    }
  SqliteRunStore store(*db, ladder);
  const auto pending = store.pending();
  ASSERT_EQ(pending.size(), 6u);
  EXPECT_NE(pending[0].name.find("d7-s1-lr_mult1"), std::string::npos);  // the biggest opener
  EXPECT_EQ(pending[1].id, small_centre);                                // then the others
  // Then the other points of the arm's two smallest rungs (here both), smallest first: d3's two
  // edge points before d7's.
  EXPECT_EQ(pending[2].flops, 1e12);
  EXPECT_EQ(pending[3].flops, 1e12);
  EXPECT_EQ(pending[4].flops, 1e14);
  EXPECT_TRUE(pending[4].id == big_edge || pending[5].id == big_edge);
  EXPECT_EQ(pending[5].flops, 1e14);
}

TEST(RungOpeners, EveryArmsThreeSmallestRungsFollowTheBiggestOpenerAndItsTwoSmallestRungsComeNext) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t ladder = db->upsertLadder("quick", "spec", "h");
  const std::vector<std::pair<std::string, double>> sizes = {
      {"d3", 1e11}, {"d4", 1e12}, {"d5", 1e13}, {"d6", 1e14}, {"d7", 1e15}};
  for (const std::string arm : {"vanilla", "grown"})
    for (const auto& [size, flops] : sizes)
      for (const std::string label : {"lr_mult0.5", "lr_mult1", "lr_mult2"}) {
        RunRecord r = point(0, size, 1, label);
        r.ladder_id = ladder;
        r.arm = arm;
        r.name = arm + "-" + size + "-s1-" + label;
        r.plan.flops = flops * (arm == "grown" ? 2 : 1);
        db->insertRun(r);
      }
  SqliteRunStore store(*db, ladder);
  std::vector<std::string> names;
  for (const auto& p : store.pending()) names.push_back(p.name);
  ASSERT_EQ(names.size(), 30u);
  const std::vector<std::string> first = {
      "grown-d7-s1-lr_mult1",                                                        // the biggest
      "vanilla-d3-s1-lr_mult1", "grown-d3-s1-lr_mult1",   "vanilla-d4-s1-lr_mult1",  // smallest
      "grown-d4-s1-lr_mult1",   "vanilla-d5-s1-lr_mult1", "grown-d5-s1-lr_mult1",    // three each
      "vanilla-d7-s1-lr_mult1", "grown-d6-s1-lr_mult1",   "vanilla-d6-s1-lr_mult1"};
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 10), first);
  // Then the other points of each arm's two smallest rungs, smallest first (curves at every swept
  // value for halving's predictions, in seconds)...
  const std::vector<std::string> calibration = {
      "vanilla-d3-s1-lr_mult0.5", "vanilla-d3-s1-lr_mult2",   "grown-d3-s1-lr_mult0.5",
      "grown-d3-s1-lr_mult2",     "vanilla-d4-s1-lr_mult0.5", "vanilla-d4-s1-lr_mult2",
      "grown-d4-s1-lr_mult0.5",   "grown-d4-s1-lr_mult2"};
  EXPECT_EQ(std::vector<std::string>(names.begin() + 10, names.begin() + 18), calibration);
  // ... then the sweep's other points, biggest first.
  EXPECT_NE(names[18].find("grown-d7"), std::string::npos) << names[18];
  EXPECT_NE(names[29].find("vanilla-d5"), std::string::npos) << names[29];

  // The order holds as runs start and end: with the biggest running and the smallest finished,
  // the next is the second smallest, not the next biggest.
  for (const auto& s : db->listRuns(ladder)) {
    if (s.run.name == "grown-d7-s1-lr_mult1") db->setRunStatus(s.run.id, RunStatus::kRunning, "");
    if (s.run.name == "vanilla-d3-s1-lr_mult1")
      db->setRunStatus(s.run.id, RunStatus::kFinished, "");
  }
  const auto later = store.pending();
  ASSERT_EQ(later.size(), 28u);
  EXPECT_EQ(later[0].name, "grown-d3-s1-lr_mult1");
  EXPECT_EQ(later[4].name, "grown-d5-s1-lr_mult1");
  EXPECT_EQ(later[5].name, "vanilla-d7-s1-lr_mult1");
}

TEST(CalibrationRuns, EveryRunOfEachArmsTwoSmallestRungsAndNoneWithoutASweep) {
  std::vector<RunRecord> runs;
  int64_t id = 1;
  // Two arms of four rungs, the sizes listed out of order; planned FLOPs rank them.
  for (const std::string arm : {"vanilla", "grow"})
    for (const auto& [size, flops] : {std::pair{"d5", 3e12}, std::pair{"d3", 1e12},
                                      std::pair{"d6", 4e12}, std::pair{"d4", 2e12}})
      for (const int64_t seed : {1, 2})
        for (const std::string label : {"lr_mult0.5", "lr_mult1", "lr_mult2"}) {
          RunRecord r = point(id++, size, seed, label);
          r.arm = arm;
          r.name = arm + "-" + size + "-s" + std::to_string(seed) + "-" + label;
          r.plan.flops = flops * (arm == "grow" ? 1.5 : 1.0);
          runs.push_back(r);
        }
  const std::set<int64_t> calibration = calibrationRuns(runs);
  // Two arms x two rungs x two seeds x three points.
  EXPECT_EQ(calibration.size(), 24u);
  for (const RunRecord& r : runs)
    EXPECT_EQ(calibration.count(r.id) > 0, r.size == "d3" || r.size == "d4") << r.name;

  // One seed and no sweep: every run opens its rung, nothing is halved, none is set apart.
  std::vector<RunRecord> plain;
  for (const RunRecord& r : runs)
    if (r.seed == 1 && r.name.find("lr_mult1") != std::string::npos &&
        r.name.find("lr_mult1.") == std::string::npos) {
      RunRecord p = r;
      p.name = r.arm + "-" + r.size + "-s1";
      plain.push_back(p);
    }
  ASSERT_EQ(plain.size(), 8u);
  EXPECT_TRUE(calibrationRuns(plain).empty());
}

}  // namespace
}  // namespace deepladder::storage
