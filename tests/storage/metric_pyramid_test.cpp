// The metric decimation pyramid (schema v4): its buckets equal a decimation of the raw rows at
// every level, a plot's per-pixel min/max read through it equals the one read from the raw rows,
// replaying a worker log after a crash (and a resumed run rewriting steps) leaves no duplicate
// or stale bucket, and migrating a v3 database builds the pyramid of the rows already there.
#include "core/metric_pyramid.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <random>

#include "core/protocol.h"
#include "schema_downgrade.h"
#include "storage/database.h"
#include "storage/ingester.h"
#include "storage/worker_log_replay.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

using testing::TempDir;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A noisy decaying curve with spikes, NaNs and irregular step gaps, starting at step 3.
std::vector<MetricRow> noisyCurve(int64_t run, const std::string& key, int points, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> gap(1, 3);
  std::normal_distribution<double> noise(0.0, 0.05);
  std::vector<MetricRow> rows;
  int64_t step = 3;
  for (int i = 0; i < points; ++i, step += gap(rng)) {
    double value = 5.0 / std::sqrt(1.0 + step) + noise(rng);
    if (i % 997 == 5) value += 3.0;  // a spike
    if (i % 1301 == 7) value = kNaN;
    rows.push_back(MetricRow{run, key, step, step * 256, step * 256 * 6e5, value, 0.01 * step});
  }
  return rows;
}

// Writes `rows` in batches of varied sizes, interleaving nothing else.
void writeInBatches(Database& db, const std::vector<MetricRow>& rows) {
  const size_t sizes[] = {1, 7, 300, 4096, 13};
  size_t next = 0;
  for (int i = 0; next < rows.size(); ++i) {
    const size_t n = std::min(sizes[i % 5], rows.size() - next);
    db.writeMetrics(std::vector<MetricRow>(rows.begin() + next, rows.begin() + next + n));
    next += n;
  }
}

// The buckets of `level`, computed straight from the raw rows (the reference).
std::vector<MetricBucket> bucketsFromRows(const std::vector<MetricPoint>& rows, int level) {
  std::map<int64_t, MetricBucket> out;
  for (const MetricPoint& p : rows) {
    const int64_t b = p.step / pyramidBucketSteps(level);  // steps are >= 0 here
    auto [it, inserted] = out.try_emplace(b);
    MetricBucket& m = it->second;
    if (inserted) {
      m = MetricBucket{level, b, 0, p.step, p.step, {-1, 0, kNaN, kNaN, kNaN}, {}};
      m.max = m.min;
    }
    ++m.count;
    m.last_step = p.step;
    if (!std::isfinite(p.value)) continue;
    if (std::isnan(m.min.value) || p.value < m.min.value) m.min = p;
    if (std::isnan(m.max.value) || p.value > m.max.value) m.max = p;
  }
  std::vector<MetricBucket> v;
  for (auto& [b, m] : out) v.push_back(m);
  return v;
}

void expectSamePoint(const MetricPoint& a, const MetricPoint& b, const std::string& what) {
  if (std::isnan(b.value)) {
    EXPECT_TRUE(std::isnan(a.value)) << what;
    return;
  }
  EXPECT_EQ(a.step, b.step) << what;
  EXPECT_EQ(a.tokens, b.tokens) << what;
  EXPECT_EQ(a.flops, b.flops) << what;
  EXPECT_EQ(a.value, b.value) << what;
}

// Every level of the stored pyramid equals the reference decimation of the stored rows.
void expectPyramidMatchesRows(Database& db, int64_t run, const std::string& key) {
  const std::vector<MetricPoint> rows = db.readMetric(run, key);
  for (int level = 0; level < kPyramidLevels; ++level) {
    const auto want = bucketsFromRows(rows, level);
    const auto have = db.readPyramidLevel(run, key, level);
    ASSERT_EQ(have.size(), want.size()) << "level " << level;
    for (size_t i = 0; i < want.size(); ++i) {
      const std::string what =
          "level " + std::to_string(level) + " bucket " + std::to_string(want[i].bucket);
      EXPECT_EQ(have[i].bucket, want[i].bucket) << what;
      EXPECT_EQ(have[i].count, want[i].count) << what;
      EXPECT_EQ(have[i].first_step, want[i].first_step) << what;
      EXPECT_EQ(have[i].last_step, want[i].last_step) << what;
      expectSamePoint(have[i].min, want[i].min, what + " min");
      expectSamePoint(have[i].max, want[i].max, what + " max");
    }
  }
}

// Min and max finite value per pixel column of `column_steps` steps, over points by step.
std::map<int64_t, std::pair<double, double>> perPixel(const std::vector<MetricPoint>& points,
                                                      int64_t column_steps, int64_t lo,
                                                      int64_t hi) {
  std::map<int64_t, std::pair<double, double>> out;
  for (const MetricPoint& p : points) {
    if (p.step < lo || p.step > hi || !std::isfinite(p.value)) continue;
    const int64_t column = (p.step - lo) / column_steps;
    auto [it, inserted] = out.try_emplace(column, p.value, p.value);
    it->second.first = std::min(it->second.first, p.value);
    it->second.second = std::max(it->second.second, p.value);
  }
  return out;
}

TEST(MetricPyramid, LevelForPixelsIsTheCoarsestWithEnoughBuckets) {
  EXPECT_EQ(pyramidLevelForPixels(10000, 1000), 0);   // 10 steps a pixel: 16-step buckets
  EXPECT_EQ(pyramidLevelForPixels(100000, 1000), 1);  // 100 a pixel: 64-step buckets
  EXPECT_EQ(pyramidLevelForPixels(5000, 1000), -1);   // 5 a pixel: every row
  EXPECT_EQ(pyramidLevelForPixels(8000, 1000), 0);    // 8 a pixel: 16 steps = 2 pixels
  EXPECT_EQ(pyramidLevelForPixels(1 << 30, 100), kPyramidLevels - 1);
  EXPECT_EQ(pyramidLevelForPixels(10000, 0), -1);
}

TEST(MetricPyramid, EveryLevelEqualsDecimatingTheRawRows) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t run = db->insertRun(RunRecord{});
  writeInBatches(*db, noisyCurve(run, "train/loss", 20000, 1));
  writeInBatches(*db, noisyCurve(run, "lr", 3000, 2));
  expectPyramidMatchesRows(*db, run, "train/loss");
  expectPyramidMatchesRows(*db, run, "lr");
}

TEST(MetricPyramid, ReadCurveGivesTheSameMinMaxPerPixelAsTheRawRows) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t run = db->insertRun(RunRecord{});
  const auto rows = noisyCurve(run, "train/loss", 20000, 3);
  db->writeMetrics(rows);
  const std::vector<MetricPoint> raw = db->readMetric(run, "train/loss");
  // The whole curve, then a zoom into the middle; pixel columns aligned with the level's buckets.
  for (const auto& [lo, hi, pixels] : {std::tuple<int64_t, int64_t, int>{0, 65535, 500},
                                       std::tuple<int64_t, int64_t, int>{8192, 16383, 300}}) {
    const MetricCurve curve = db->readCurve(run, "train/loss", pixels, lo, hi);
    ASSERT_GE(curve.level, 0);
    EXPECT_LE(curve.bucket_steps * pixels, 2 * (curve.step_hi - curve.step_lo + 1));
    EXPECT_LT(curve.points.size(), raw.size() / 2);
    const int64_t column = curve.bucket_steps;  // a pixel column per bucket, aligned
    const auto from_raw = perPixel(raw, column, lo, hi);
    const auto from_pyramid = perPixel(curve.points, column, lo, hi);
    EXPECT_EQ(from_pyramid, from_raw) << "steps " << lo << ".." << hi;
    for (size_t i = 1; i < curve.points.size(); ++i)
      ASSERT_LT(curve.points[i - 1].step, curve.points[i].step);
  }
}

TEST(MetricPyramid, ZoomedInFurtherThanLevelZeroReadsEveryRow) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t run = db->insertRun(RunRecord{});
  db->writeMetrics(noisyCurve(run, "train/loss", 5000, 4));
  const MetricCurve curve = db->readCurve(run, "train/loss", 800, 1000, 3000);
  EXPECT_EQ(curve.level, -1);
  EXPECT_EQ(curve.bucket_steps, 1);
  const auto raw = db->readMetricRange(run, "train/loss", 1000, 3000);
  ASSERT_EQ(curve.points.size(), raw.size());
  for (size_t i = 0; i < raw.size(); ++i) EXPECT_EQ(curve.points[i].step, raw[i].step);
  // A whole curve with no row at all reads as empty.
  EXPECT_TRUE(db->readCurve(run, "val/loss", 800).points.empty());
}

// A worker log of `steps` metric lines (two keys) after a hello.
std::vector<std::string> workerLog(int64_t first_step, int64_t steps, double offset) {
  std::vector<std::string> lines{protocol::encode(protocol::Hello{"1", "cfg", "cpu", -1, 1, 1})};
  for (int64_t step = first_step; step < first_step + steps; ++step) {
    protocol::Metric m;
    m.step = step;
    m.tokens = step * 64;
    m.flops = step * 64 * 1e5;
    m.wall_s = 0.01 * step;
    m.values = {{"train/loss", offset + 4.0 / (1.0 + step) + 0.1 * ((step * 7919) % 13)},
                {"lr", 1e-3}};
    lines.push_back(protocol::encode(m));
  }
  return lines;
}

TEST(MetricPyramid, CrashReplayDuplicatesNoBucket) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t run = db->insertRun(RunRecord{});
  const auto lines = workerLog(0, 9000, 0.0);
  {
    Ingester ingester(*db, run, /*flush_rows=*/97, /*flush_seconds=*/60);
    for (const auto& line : lines) ASSERT_TRUE(ingester.applyLine(line));
  }
  const int64_t rows_once = db->queryInt("SELECT count(*) FROM metric_pyramid");
  EXPECT_GT(rows_once, 0);
  const std::string log = dir.file("protocol.jsonl");
  {
    std::ofstream out(log);
    for (const auto& line : lines) out << line << "\n";
  }
  for (int replay = 0; replay < 2; ++replay) {
    EXPECT_EQ(replayWorkerLog(*db, run, log), 9000);
    EXPECT_EQ(db->queryInt("SELECT count(*) FROM metric_pyramid"), rows_once);
    expectPyramidMatchesRows(*db, run, "train/loss");
    expectPyramidMatchesRows(*db, run, "lr");
  }
  // One bucket per level and bucket index: no duplicate key survives.
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM (SELECT DISTINCT run_id, key_id, level, bucket "
                         "FROM metric_pyramid)"),
            rows_once);
}

TEST(MetricPyramid, AResumedRunRewritingStepsLeavesNoStaleExtreme) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t run = db->insertRun(RunRecord{});
  {
    Ingester ingester(*db, run, /*flush_rows=*/500, /*flush_seconds=*/60);
    for (const auto& line : workerLog(0, 6000, 10.0)) ingester.applyLine(line);
  }
  // Resumed from a checkpoint at step 2000: steps 2000.. are logged again, 10 lower.
  {
    Ingester ingester(*db, run, /*flush_rows=*/333, /*flush_seconds=*/60);
    for (const auto& line : workerLog(2000, 5000, 0.0)) ingester.applyLine(line);
  }
  expectPyramidMatchesRows(*db, run, "train/loss");
  const auto top = db->readPyramidLevel(run, "train/loss", kPyramidLevels - 1);
  ASSERT_FALSE(top.empty());
  EXPECT_LT(top.back().max.value, 5.0);  // the old, 10-higher values are gone
}

TEST(MetricPyramid, RewritingStepsInTheMiddleKeepsTheBucketsAroundThem) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t run = db->insertRun(RunRecord{});
  auto rows = noisyCurve(run, "train/loss", 9000, 7);
  db->writeMetrics(rows);
  // Rows from the middle written again with other values (a partial replay of another attempt),
  // their steps ending inside coarse buckets that hold stored rows after them.
  std::vector<MetricRow> middle(rows.begin() + 3001, rows.begin() + 3377);
  for (MetricRow& row : middle) row.value = -row.value;
  db->writeMetrics(middle);
  expectPyramidMatchesRows(*db, run, "train/loss");
}

TEST(MetricPyramid, MigratingAVersion3DatabaseBuildsThePyramid) {
  TempDir dir;
  const auto path = dir.file("v3.db");
  int64_t run = 0;
  {
    auto db = Database::open(path);
    run = db->insertRun(RunRecord{});
    db->writeMetrics(noisyCurve(run, "train/loss", 7000, 5));
    db->writeMetrics(noisyCurve(run, "val/loss", 700, 6));
    // As schema v3 left it: metric rows, no pyramid.
    testing::downgradeToSchemaV4(*db);
    db->execute("DROP TABLE metric_pyramid; PRAGMA user_version = 3;");
  }
  auto db = Database::open(path);
  EXPECT_EQ(db->schemaVersion(), Database::kSchemaVersion);
  expectPyramidMatchesRows(*db, run, "train/loss");
  expectPyramidMatchesRows(*db, run, "val/loss");
  EXPECT_EQ(db->integrityCheck(), "ok");
}

}  // namespace
}  // namespace deepladder::storage
