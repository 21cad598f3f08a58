// Metric keys stored as integer ids (schema v5, table metric_keys): a v4 database with metric and
// pyramid rows migrates and reads the same curves, names round-trip through their ids, rewriting
// the same rows duplicates neither rows nor key names, rows of a missing run are refused, and a
// deleted run takes its rows and pyramid with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/metric_pyramid.h"
#include "schema_downgrade.h"
#include "storage/database.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

using testing::TempDir;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<MetricRow> curve(int64_t run, const std::string& key, int64_t first, int64_t count,
                             double scale) {
  std::vector<MetricRow> rows;
  for (int64_t step = first; step < first + count; ++step) {
    const double value = step % 611 == 3 ? kNaN : scale / (1.0 + step) + 0.01 * (step % 7);
    rows.push_back(MetricRow{run, key, step, step * 64, step * 64 * 1e6, value, 0.5 * step});
  }
  return rows;
}

bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

void expectSamePoints(const std::vector<MetricPoint>& a, const std::vector<MetricPoint>& b,
                      const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].step, b[i].step) << what << " #" << i;
    EXPECT_EQ(a[i].tokens, b[i].tokens) << what << " #" << i;
    EXPECT_TRUE(same(a[i].flops, b[i].flops)) << what << " #" << i;
    EXPECT_TRUE(same(a[i].value, b[i].value)) << what << " #" << i;
    EXPECT_TRUE(same(a[i].wall, b[i].wall)) << what << " #" << i;
  }
}

// Everything a reader sees of one curve: its rows, every pyramid level, a plot's read.
struct CurveView {
  std::vector<MetricPoint> rows;
  std::vector<std::vector<MetricBucket>> levels;
  MetricCurve plot;
};

CurveView view(Database& db, int64_t run, const std::string& key) {
  CurveView v{db.readMetric(run, key), {}, db.readCurve(run, key, 300)};
  for (int level = 0; level < kPyramidLevels; ++level)
    v.levels.push_back(db.readPyramidLevel(run, key, level));
  return v;
}

void expectSameView(const CurveView& a, const CurveView& b, const std::string& what) {
  expectSamePoints(a.rows, b.rows, what + " rows");
  ASSERT_EQ(a.levels.size(), b.levels.size());
  for (size_t level = 0; level < a.levels.size(); ++level) {
    const auto& x = a.levels[level];
    const auto& y = b.levels[level];
    ASSERT_EQ(x.size(), y.size()) << what << " level " << level;
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(x[i].bucket, y[i].bucket);
      EXPECT_EQ(x[i].count, y[i].count);
      EXPECT_EQ(x[i].first_step, y[i].first_step);
      EXPECT_EQ(x[i].last_step, y[i].last_step);
      EXPECT_EQ(x[i].min.step, y[i].min.step);
      EXPECT_TRUE(same(x[i].min.value, y[i].min.value));
      EXPECT_EQ(x[i].max.step, y[i].max.step);
      EXPECT_TRUE(same(x[i].max.value, y[i].max.value));
    }
  }
  EXPECT_EQ(a.plot.level, b.plot.level) << what;
  EXPECT_EQ(a.plot.rows, b.plot.rows) << what;
  expectSamePoints(a.plot.points, b.plot.points, what + " plot");
}

TEST(MetricKeys, AVersion4DatabaseMigratesAndReadsTheSameCurves) {
  TempDir dir;
  const auto path = dir.file("v4.db");
  const std::vector<std::string> keys = {"train/loss", "val/loss", "lr", "it's \"odd\"/é"};
  int64_t run_a = 0, run_b = 0;
  std::vector<CurveView> before;
  std::vector<RunSummary> runs_before;
  {
    auto db = Database::open(path);
    run_a = db->insertRun(RunRecord{});
    run_b = db->insertRun(RunRecord{});
    for (size_t k = 0; k < keys.size(); ++k) {
      db->writeMetrics(curve(run_a, keys[k], 0, 5000 + 300 * k, 1.0 + k));
      if (k != 2) db->writeMetrics(curve(run_b, keys[k], 10, 2000, 3.0 + k));
    }
    for (int64_t run : {run_a, run_b})
      for (const auto& key : keys) before.push_back(view(*db, run, key));
    runs_before = db->listRuns();
    // As schema v4 left it: text keys in metrics and metric_pyramid, no metric_keys.
    testing::downgradeToSchemaV4(*db);
    EXPECT_EQ(db->schemaVersion(), 4);
    EXPECT_EQ(db->queryInt("SELECT count(*) FROM metrics WHERE key = 'train/loss'"), 7000);
    EXPECT_GT(db->queryInt("SELECT count(*) FROM metric_pyramid WHERE key = 'lr'"), 0);
  }
  // A reader (status, metrics: a read-only open) migrates it once, as the file is writable.
  EXPECT_EQ(Database::open(path, /*read_only=*/true)->schemaVersion(), Database::kSchemaVersion);
  auto db = Database::open(path);
  EXPECT_EQ(db->schemaVersion(), Database::kSchemaVersion);
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM metric_keys"), static_cast<int64_t>(keys.size()));
  // The by-hand view names each row's key.
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM metric_values WHERE key = 'train/loss'"), 7000);
  size_t i = 0;
  for (int64_t run : {run_a, run_b})
    for (const auto& key : keys) expectSameView(before[i++], view(*db, run, key), key);
  std::vector<std::string> sorted_keys = keys;
  std::sort(sorted_keys.begin(), sorted_keys.end());
  EXPECT_EQ(db->metricKeys(run_a), sorted_keys);
  const auto runs_after = db->listRuns();
  ASSERT_EQ(runs_after.size(), runs_before.size());
  for (size_t r = 0; r < runs_after.size(); ++r) {
    ASSERT_TRUE(runs_after[r].last_train_loss && runs_before[r].last_train_loss);
    EXPECT_EQ(*runs_after[r].last_train_loss, *runs_before[r].last_train_loss);
    ASSERT_TRUE(runs_after[r].last_val_loss && runs_before[r].last_val_loss);
    EXPECT_EQ(*runs_after[r].last_val_loss, *runs_before[r].last_val_loss);
  }
  EXPECT_EQ(db->integrityCheck(), "ok");

  // Writing on after the migration: an old key appends, a new key gets an id of its own.
  db->writeMetrics(curve(run_a, "train/loss", 5000, 1000, 1.0));
  db->writeMetrics(curve(run_a, "grad_norm", 0, 100, 2.0));
  EXPECT_EQ(db->readMetric(run_a, "train/loss").size(), 6000u);
  EXPECT_EQ(db->readMetric(run_a, "grad_norm").size(), 100u);
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM metric_keys"),
            static_cast<int64_t>(keys.size()) + 1);
}

TEST(MetricKeys, RewritingTheSameRowsDuplicatesNothing) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t run = db->insertRun(RunRecord{});
  const int64_t other = db->insertRun(RunRecord{});
  auto rows = curve(run, "train/loss", 0, 3000, 1.0);
  const auto lr = curve(other, "lr", 0, 3000, 2.0);
  rows.insert(rows.end(), lr.begin(), lr.end());
  db->writeMetrics(rows);
  const int64_t pyramid_rows = db->queryInt("SELECT count(*) FROM metric_pyramid");
  for (MetricRow& row : rows) row.value *= 2;  // replayed with other values: the last ones win
  db->writeMetrics(rows);
  db->writeMetrics(rows);
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM metrics"), 6000);
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM metric_keys"), 2);
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM metric_pyramid"), pyramid_rows);
  const auto points = db->readMetric(run, "train/loss");
  ASSERT_EQ(points.size(), 3000u);
  EXPECT_EQ(points[10].value, 2 * (1.0 / 11 + 0.01 * 3));
  EXPECT_TRUE(db->readMetric(run, "lr").empty());  // lr belongs to the other run
  EXPECT_TRUE(db->readMetric(run, "no such key").empty());
}

TEST(MetricKeys, AFailedWriteLeavesNoKeyBehind) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t run = db->insertRun(RunRecord{});
  db->writeMetrics(curve(run, "train/loss", 0, 10, 1.0));
  // A row of a run that does not exist fails the write: the whole write rolls back, the key
  // name it brought included.
  auto rows = curve(run, "new/key", 0, 10, 1.0);
  rows.push_back(MetricRow{run + 100, "new/key", 0, 0, 0, 1.0, 0});
  EXPECT_THROW(db->writeMetrics(rows), std::runtime_error);
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM metric_keys"), 1);
  EXPECT_TRUE(db->readMetric(run, "new/key").empty());
  db->writeMetrics(curve(run, "new/key", 0, 10, 1.0));  // and works when written properly
  EXPECT_EQ(db->readMetric(run, "new/key").size(), 10u);
}

TEST(MetricKeys, DeletingARunOrItsLadderDeletesItsRowsAndPyramid) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  db->execute("INSERT INTO ladders(name, spec, hash) VALUES ('l', '', 'h')");
  RunRecord in_ladder;
  in_ladder.ladder_id = db->queryInt("SELECT id FROM ladders");
  const int64_t a = db->insertRun(in_ladder), b = db->insertRun(RunRecord{}),
                c = db->insertRun(RunRecord{});
  for (int64_t run : {a, b, c}) db->writeMetrics(curve(run, "train/loss", 0, 2000, 1.0));
  auto rowsOf = [&](int64_t run) {
    const std::string where = " WHERE run_id = " + std::to_string(run);
    return db->queryInt("SELECT count(*) FROM metrics" + where) +
           db->queryInt("SELECT count(*) FROM metric_pyramid" + where);
  };
  ASSERT_GT(rowsOf(a), 2000);
  db->execute("DELETE FROM runs WHERE id = " + std::to_string(b));
  EXPECT_EQ(rowsOf(b), 0);
  db->execute("DELETE FROM ladders");  // its runs go by their foreign key, their rows with them
  EXPECT_EQ(rowsOf(a), 0);
  EXPECT_EQ(db->readMetric(c, "train/loss").size(), 2000u);  // another run's rows stay
}

}  // namespace
}  // namespace deepladder::storage
