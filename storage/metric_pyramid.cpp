// Reading curves through the metric decimation pyramid (see core/metric_pyramid.h): the level that
// matches a plot's pixels, or every row when zoomed in further than the finest level.
#include "core/metric_pyramid.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "storage/database.h"
#include "storage/database_impl.h"

namespace deepladder::storage {

namespace {

constexpr double kNullColumn = std::numeric_limits<double>::quiet_NaN();

double nullableDouble(sqlite3_stmt* s, int column) {
  return sqlite3_column_type(s, column) == SQLITE_NULL ? kNullColumn
                                                       : sqlite3_column_double(s, column);
}

// The min or max point of a bucket row, from its four columns starting at `first`.
MetricPoint bucketPoint(sqlite3_stmt* s, int first) {
  if (sqlite3_column_type(s, first) == SQLITE_NULL)
    return MetricPoint{-1, 0, kNullColumn, kNullColumn, kNullColumn};
  return MetricPoint{sqlite3_column_int64(s, first), sqlite3_column_int64(s, first + 1),
                     sqlite3_column_double(s, first + 2), nullableDouble(s, first + 3),
                     kNullColumn};
}

}  // namespace

std::vector<MetricBucket> Database::readPyramidLevel(int64_t run_id, const std::string& key,
                                                     int level, int64_t step_lo, int64_t step_hi) {
  Statement& select = impl_->prepared(
      "SELECT bucket, count, first_step, last_step, min_step, min_tokens, min_flops, min_value, "
      "max_step, max_tokens, max_flops, max_value FROM metric_pyramid "
      "WHERE run_id = ?1 AND key_id = (SELECT id FROM metric_keys WHERE name = ?2) AND level = ?3 "
      "AND bucket BETWEEN ?4 AND ?5 ORDER BY bucket");
  ResetOnExit reset{select};
  select.bind(1, run_id);
  select.bindText(2, key);
  select.bind(3, static_cast<int64_t>(level));
  select.bind(4, pyramidBucket(step_lo, level));
  select.bind(5, pyramidBucket(step_hi, level));
  sqlite3_stmt* s = select.handle();
  std::vector<MetricBucket> buckets;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    buckets.push_back(MetricBucket{level, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
                                   sqlite3_column_int64(s, 2), sqlite3_column_int64(s, 3),
                                   bucketPoint(s, 4), bucketPoint(s, 8)});
  }
  if (rc != SQLITE_DONE) checkSqlite(impl_->db, rc, "reading the pyramid of " + key);
  return buckets;
}

std::vector<MetricPoint> Database::readMetricRange(int64_t run_id, const std::string& key,
                                                   int64_t step_lo, int64_t step_hi) {
  Statement& select = impl_->prepared(
      "SELECT step, tokens, flops, value, wall FROM metrics WHERE run_id = ?1 "
      "AND key_id = (SELECT id FROM metric_keys WHERE name = ?2) AND step BETWEEN ?3 AND ?4 "
      "ORDER BY step");
  ResetOnExit reset{select};
  select.bind(1, run_id);
  select.bindText(2, key);
  select.bind(3, step_lo);
  select.bind(4, step_hi);
  sqlite3_stmt* s = select.handle();
  std::vector<MetricPoint> points;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    points.push_back(MetricPoint{sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
                                 sqlite3_column_double(s, 2), nullableDouble(s, 3),
                                 nullableDouble(s, 4)});
  }
  if (rc != SQLITE_DONE) checkSqlite(impl_->db, rc, "reading metric " + key);
  return points;
}

MetricCurve Database::readCurve(int64_t run_id, const std::string& key, int pixels, int64_t step_lo,
                                int64_t step_hi) {
  MetricCurve curve;
  // The curve's own first and last step, from the few buckets of the coarsest level.
  {
    Statement& extent = impl_->prepared(
        "SELECT min(first_step), max(last_step) FROM metric_pyramid "
        "WHERE run_id = ?1 AND key_id = (SELECT id FROM metric_keys WHERE name = ?2) "
        "AND level = ?3");
    ResetOnExit reset{extent};
    extent.bind(1, run_id);
    extent.bindText(2, key);
    extent.bind(3, static_cast<int64_t>(kPyramidLevels - 1));
    if (!extent.step() || extent.columnIsNull(0)) return curve;  // no rows
    curve.step_lo = std::max(step_lo, extent.columnInt(0));
    curve.step_hi = std::min(step_hi, extent.columnInt(1));
  }
  if (curve.step_hi < curve.step_lo) return curve;
  const int level = pyramidLevelForPixels(curve.step_hi - curve.step_lo + 1, pixels);
  if (level < 0) {
    curve.points = readMetricRange(run_id, key, curve.step_lo, curve.step_hi);
    curve.rows = static_cast<int64_t>(curve.points.size());
    return curve;
  }
  curve.level = level;
  curve.bucket_steps = pyramidBucketSteps(level);
  const std::vector<MetricBucket> buckets =
      readPyramidLevel(run_id, key, level, curve.step_lo, curve.step_hi);
  curve.points.reserve(2 * buckets.size());
  for (const MetricBucket& b : buckets) {
    curve.rows += b.count;
    if (std::isnan(b.min.value)) continue;  // no finite value in the bucket
    const bool min_first = b.min.step <= b.max.step;
    curve.points.push_back(min_first ? b.min : b.max);
    if (b.min.step != b.max.step) curve.points.push_back(min_first ? b.max : b.min);
  }
  return curve;
}

}  // namespace deepladder::storage
