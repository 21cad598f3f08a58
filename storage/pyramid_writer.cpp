// Rebuilding the metric pyramid's touched buckets from the metric rows (see pyramid_writer.h).
#include "storage/pyramid_writer.h"

#include <sqlite3.h>

#include <array>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "storage/metric_pyramid.h"
#include "storage/records.h"
#include "storage/statement.h"

namespace deepladder::storage {

const char* const PyramidWriter::kReadRowsSql =
    "SELECT step, tokens, flops, value FROM metrics WHERE run_id = ?1 AND key = ?2 "
    "AND step BETWEEN ?3 AND ?4 ORDER BY step";

const char* const PyramidWriter::kUpsertSql =
    "INSERT INTO metric_pyramid(run_id, key, level, bucket, count, first_step, last_step, "
    "min_step, min_tokens, min_flops, min_value, max_step, max_tokens, max_flops, max_value) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) "
    "ON CONFLICT(run_id, key, level, bucket) DO UPDATE SET count = excluded.count, "
    "first_step = excluded.first_step, last_step = excluded.last_step, "
    "min_step = excluded.min_step, min_tokens = excluded.min_tokens, "
    "min_flops = excluded.min_flops, min_value = excluded.min_value, "
    "max_step = excluded.max_step, max_tokens = excluded.max_tokens, "
    "max_flops = excluded.max_flops, max_value = excluded.max_value";

namespace {

constexpr int64_t kMinStep = std::numeric_limits<int64_t>::min();
constexpr int64_t kMaxStep = std::numeric_limits<int64_t>::max();

// One bucket being filled, row by row in step order.
struct Accumulator {
  bool open = false;
  int64_t bucket = 0, count = 0, first_step = 0, last_step = 0;
  bool finite = false;
  int64_t min_step = 0, min_tokens = 0, max_step = 0, max_tokens = 0;
  double min_flops = 0, min_value = 0, max_flops = 0, max_value = 0;

  void start(int64_t b, int64_t step) {
    open = true;
    bucket = b;
    count = 0;
    first_step = step;
    finite = false;
  }
  void add(int64_t step, int64_t tokens, double flops, double value) {
    ++count;
    last_step = step;
    if (!std::isfinite(value)) return;
    // Ties keep the earliest point, as decimating the raw rows does.
    if (!finite || value < min_value) {
      min_step = step, min_tokens = tokens, min_flops = flops, min_value = value;
    }
    if (!finite || value > max_value) {
      max_step = step, max_tokens = tokens, max_flops = flops, max_value = value;
    }
    finite = true;
  }
};

// [lo, hi] widened to whole buckets of the coarsest level, without overflowing.
std::pair<int64_t, int64_t> coarsestBucketRange(int64_t lo, int64_t hi) {
  const int shift = pyramidShift(kPyramidLevels - 1);
  const int64_t width = int64_t{1} << shift;
  const int64_t read_lo = lo < kMinStep + width ? kMinStep : (lo >> shift) << shift;
  const int64_t read_hi = hi > kMaxStep - width ? kMaxStep : ((hi >> shift) << shift) + width - 1;
  return {read_lo, read_hi};
}

}  // namespace

int64_t PyramidWriter::rebuild(int64_t run_id, const std::string& key, int64_t step_lo,
                               int64_t step_hi) {
  if (step_hi < step_lo) return 0;
  // Every touched bucket of every level lies within the coarsest level's touched buckets, so one
  // ordered read of those rows fills them all.
  const auto [read_lo, read_hi] = coarsestBucketRange(step_lo, step_hi);
  ResetOnExit reset_read{read_rows_};
  read_rows_.bind(1, run_id);
  read_rows_.bindText(2, key, /*transient=*/false);
  read_rows_.bind(3, read_lo);
  read_rows_.bind(4, read_hi);

  sqlite3_stmt* up = upsert_.handle();
  int64_t written = 0;
  auto emit = [&](int level, const Accumulator& a) {
    // Buckets of this level that the write did not touch are already right.
    if (a.bucket < pyramidBucket(step_lo, level) || a.bucket > pyramidBucket(step_hi, level))
      return;
    int rc = sqlite3_bind_int64(up, 1, run_id) |
             sqlite3_bind_text(up, 2, key.data(), static_cast<int>(key.size()), SQLITE_STATIC) |
             sqlite3_bind_int(up, 3, level) | sqlite3_bind_int64(up, 4, a.bucket) |
             sqlite3_bind_int64(up, 5, a.count) | sqlite3_bind_int64(up, 6, a.first_step) |
             sqlite3_bind_int64(up, 7, a.last_step);
    if (a.finite) {
      rc |= sqlite3_bind_int64(up, 8, a.min_step) | sqlite3_bind_int64(up, 9, a.min_tokens) |
            sqlite3_bind_double(up, 10, a.min_flops) | sqlite3_bind_double(up, 11, a.min_value) |
            sqlite3_bind_int64(up, 12, a.max_step) | sqlite3_bind_int64(up, 13, a.max_tokens) |
            sqlite3_bind_double(up, 14, a.max_flops) | sqlite3_bind_double(up, 15, a.max_value);
    } else {
      for (int p = 8; p <= 15; ++p) rc |= sqlite3_bind_null(up, p);
    }
    if (rc != SQLITE_OK) checkSqlite(sqlite3_db_handle(up), rc, "binding a metric pyramid row");
    upsert_.run();
    ++written;
  };

  std::array<Accumulator, kPyramidLevels> levels;
  sqlite3_stmt* s = read_rows_.handle();
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const int64_t step = sqlite3_column_int64(s, 0);
    const int64_t tokens = sqlite3_column_int64(s, 1);
    const double flops = sqlite3_column_double(s, 2);
    const double value = sqlite3_column_type(s, 3) == SQLITE_NULL
                             ? std::numeric_limits<double>::quiet_NaN()
                             : sqlite3_column_double(s, 3);
    for (int level = 0; level < kPyramidLevels; ++level) {
      Accumulator& a = levels[level];
      const int64_t bucket = pyramidBucket(step, level);
      if (!a.open || a.bucket != bucket) {
        if (a.open) emit(level, a);
        a.start(bucket, step);
      }
      a.add(step, tokens, flops, value);
    }
  }
  if (rc != SQLITE_DONE) checkSqlite(sqlite3_db_handle(s), rc, "reading metric rows for " + key);
  for (int level = 0; level < kPyramidLevels; ++level)
    if (levels[level].open) emit(level, levels[level]);
  read_rows_.clearBindings();  // the key's pointer is about to dangle
  upsert_.clearBindings();
  return written;
}

void buildPyramidForAllMetrics(sqlite3* db) {
  std::vector<std::pair<int64_t, std::string>> curves;
  {
    Statement select(db, "SELECT DISTINCT run_id, key FROM metrics ORDER BY run_id, key");
    while (select.step()) curves.emplace_back(select.columnInt(0), select.columnText(1));
  }
  Statement read_rows(db, PyramidWriter::kReadRowsSql);
  Statement upsert(db, PyramidWriter::kUpsertSql);
  PyramidWriter writer(read_rows, upsert);
  for (const auto& [run_id, key] : curves) writer.rebuild(run_id, key, kMinStep, kMaxStep);
}

}  // namespace deepladder::storage
