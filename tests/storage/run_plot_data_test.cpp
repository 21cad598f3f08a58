// What the plots read of one run: a curve (Database::readCurve) whole (pixels 0: every row) or
// through the pyramid (a few points a pixel, each standing for several rows), lens rows grouped
// into per-step profiles with NaN where a block has no row, and the legend label of a run.
#include "storage/run_plot_data.h"

#include <gtest/gtest.h>

#include <cmath>

namespace deepladder::storage {
namespace {

int64_t addRun(Database& db, const std::string& name, const std::string& arm) {
  RunRecord r;
  r.name = name;
  r.arm = arm;
  r.status = RunStatus::kFinished;
  return db.insertRun(r);
}

TEST(RunPlotData, CurvesWholeOrThroughThePyramid) {
  auto db = Database::open(":memory:");
  const int64_t run = addRun(*db, "vanilla-d4-s1", "vanilla");
  std::vector<MetricRow> rows;
  for (int64_t step = 0; step < 4096; ++step)
    rows.push_back({run, "train/loss", step, step * 64, step * 1e9, 3.0 - step * 1e-4, 0.0});
  db->writeMetrics(rows);
  const MetricCurve whole = db->readCurve(run, "train/loss", 0);
  EXPECT_EQ(whole.points.size(), 4096u);
  EXPECT_EQ(whole.bucket_steps, 1);
  const MetricCurve coarse = db->readCurve(run, "train/loss", /*pixels=*/100);
  EXPECT_LT(coarse.points.size(), 400u);
  EXPECT_GT(coarse.bucket_steps, 1);
  EXPECT_EQ(coarse.rows, 4096);
  const MetricCurve window = db->readCurve(run, "train/loss", 0, 100, 199);
  ASSERT_EQ(window.points.size(), 100u);
  EXPECT_EQ(window.points.front().step, 100);
  EXPECT_TRUE(db->readCurve(run, "val/loss", 0).points.empty());
}

TEST(RunPlotData, LensProfilesByStepWithGapsAsNaN) {
  auto db = Database::open(":memory:");
  const int64_t run = addRun(*db, "vanilla-d4-s1", "vanilla");
  db->writeLens({{run, 10, 0, 0.5}, {run, 10, 2, 3.0}, {run, 20, 0, 0.4}, {run, 20, 1, 2.0}});
  const auto profiles = lensProfiles(*db, run);
  ASSERT_EQ(profiles.size(), 2u);
  EXPECT_EQ(profiles[0].step, 10);
  ASSERT_EQ(profiles[0].kl.size(), 3u);
  EXPECT_TRUE(std::isnan(profiles[0].kl[1]));
  EXPECT_DOUBLE_EQ(profiles[0].kl[2], 3.0);
  EXPECT_EQ(profiles[1].kl, (std::vector<double>{0.4, 2.0}));
  EXPECT_TRUE(lensProfiles(*db, run + 1).empty());
}

TEST(RunPlotData, LabelsNameTheArmOnceAndTheId) {
  auto db = Database::open(":memory:");
  const int64_t own = addRun(*db, "vanilla-d4-s1", "vanilla");
  const int64_t other = addRun(*db, "probe", "growth");
  const int64_t single = addRun(*db, "tiny", "single");
  EXPECT_EQ(runLabel(*db, own), "vanilla-d4-s1 #" + std::to_string(own));
  EXPECT_EQ(runLabel(*db, other), "growth/probe #" + std::to_string(other));
  EXPECT_EQ(runLabel(*db, single), "tiny #" + std::to_string(single));
  EXPECT_EQ(runLabel(*db, 999), "run #999");
}

}  // namespace
}  // namespace deepladder::storage
