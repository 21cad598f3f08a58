// Rebuilding the metric pyramid's touched buckets from the metric rows (see pyramid_writer.h).
#include "storage/pyramid_writer.h"

#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "storage/metric_pyramid.h"
#include "storage/statement.h"

namespace deepladder::storage {

const char* const PyramidWriter::kReadRowsSql =
    "SELECT step, tokens, flops, value FROM metrics WHERE run_id = ?1 AND key = ?2 "
    "AND step BETWEEN ?3 AND ?4 ORDER BY step";

const char* const PyramidWriter::kReadLevelSql =
    "SELECT bucket, count, first_step, last_step, min_step, min_tokens, min_flops, min_value, "
    "max_step, max_tokens, max_flops, max_value FROM metric_pyramid "
    "WHERE run_id = ?1 AND key = ?2 AND level = ?3 AND bucket BETWEEN ?4 AND ?5 ORDER BY bucket";

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

// One extreme of a bucket.
struct Extreme {
  int64_t step = 0, tokens = 0;
  double flops = 0, value = 0;
};

// One bucket being filled in step order, from rows (level 0) or from the finer level's buckets.
struct Accumulator {
  bool open = false;
  int64_t bucket = 0, count = 0, first_step = 0, last_step = 0;
  bool finite = false;  // min and max hold something
  Extreme min, max;

  void start(int64_t b, int64_t first) {
    open = true;
    bucket = b;
    count = 0;
    first_step = first;
    finite = false;
  }
  // Ties keep the earliest point, as decimating the raw rows does: input comes in step order.
  void addExtremes(const Extreme& lo, const Extreme& hi) {
    if (!finite || lo.value < min.value) min = lo;
    if (!finite || hi.value > max.value) max = hi;
    finite = true;
  }
  void addRow(int64_t step, int64_t tokens, double flops, double value) {
    ++count;
    last_step = step;
    if (std::isfinite(value))
      addExtremes({step, tokens, flops, value}, {step, tokens, flops, value});
  }
};

// The range of `level` buckets that hold steps in [lo, hi].
std::pair<int64_t, int64_t> bucketRange(int64_t lo, int64_t hi, int level) {
  return {pyramidBucket(lo, level), pyramidBucket(hi, level)};
}

}  // namespace

int64_t PyramidWriter::rebuild(int64_t run_id, const std::string& key, int64_t step_lo,
                               int64_t step_hi) {
  if (step_hi < step_lo) return 0;
  sqlite3_stmt* up = upsert_.handle();
  int64_t written = 0;
  auto emit = [&](int level, const Accumulator& a) {
    int rc = sqlite3_bind_int64(up, 1, run_id) |
             sqlite3_bind_text(up, 2, key.data(), static_cast<int>(key.size()), SQLITE_STATIC) |
             sqlite3_bind_int(up, 3, level) | sqlite3_bind_int64(up, 4, a.bucket) |
             sqlite3_bind_int64(up, 5, a.count) | sqlite3_bind_int64(up, 6, a.first_step) |
             sqlite3_bind_int64(up, 7, a.last_step);
    if (a.finite) {
      rc |= sqlite3_bind_int64(up, 8, a.min.step) | sqlite3_bind_int64(up, 9, a.min.tokens) |
            sqlite3_bind_double(up, 10, a.min.flops) | sqlite3_bind_double(up, 11, a.min.value) |
            sqlite3_bind_int64(up, 12, a.max.step) | sqlite3_bind_int64(up, 13, a.max.tokens) |
            sqlite3_bind_double(up, 14, a.max.flops) | sqlite3_bind_double(up, 15, a.max.value);
    } else {
      for (int p = 8; p <= 15; ++p) rc |= sqlite3_bind_null(up, p);
    }
    if (rc != SQLITE_OK) checkSqlite(sqlite3_db_handle(up), rc, "binding a metric pyramid row");
    upsert_.run();
    ++written;
  };

  // Level 0: every touched bucket from the rows it holds now (the new ones and any before).
  {
    const auto [b_lo, b_hi] = bucketRange(step_lo, step_hi, 0);
    const int shift = pyramidShift(0);
    ResetOnExit reset{read_rows_};
    read_rows_.bind(1, run_id);
    read_rows_.bindText(2, key, /*transient=*/false);
    read_rows_.bind(3, b_lo << shift);  // no overflow: b_lo = step_lo >> shift
    read_rows_.bind(4, b_hi > (kMaxStep >> shift) - 1 ? kMaxStep : ((b_hi + 1) << shift) - 1);
    sqlite3_stmt* s = read_rows_.handle();
    Accumulator a;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      const int64_t step = sqlite3_column_int64(s, 0);
      const int64_t bucket = pyramidBucket(step, 0);
      if (!a.open || a.bucket != bucket) {
        if (a.open) emit(0, a);
        a.start(bucket, step);
      }
      const double value = sqlite3_column_type(s, 3) == SQLITE_NULL
                               ? std::numeric_limits<double>::quiet_NaN()
                               : sqlite3_column_double(s, 3);
      a.addRow(step, sqlite3_column_int64(s, 1), sqlite3_column_double(s, 2), value);
    }
    if (rc != SQLITE_DONE) checkSqlite(sqlite3_db_handle(s), rc, "reading metric rows of " + key);
    if (a.open) emit(0, a);
    read_rows_.clearBindings();  // the key's pointer is about to dangle
  }

  // Coarser levels: each touched bucket from the finer level's buckets it is made of.
  for (int level = 1; level < kPyramidLevels; ++level) {
    const auto [b_lo, b_hi] = bucketRange(step_lo, step_hi, level);
    constexpr int kFan = kPyramidFanOutShift;
    ResetOnExit reset{read_level_};
    read_level_.bind(1, run_id);
    read_level_.bindText(2, key, /*transient=*/false);
    read_level_.bind(3, static_cast<int64_t>(level - 1));
    read_level_.bind(4, b_lo * (int64_t{1} << kFan));  // no overflow: b_lo = lo >> (3 + 2 level)
    read_level_.bind(5, b_hi * (int64_t{1} << kFan) + ((int64_t{1} << kFan) - 1));
    sqlite3_stmt* s = read_level_.handle();
    Accumulator a;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      const int64_t bucket = sqlite3_column_int64(s, 0) >> kFan;
      if (!a.open || a.bucket != bucket) {
        if (a.open) emit(level, a);
        a.start(bucket, sqlite3_column_int64(s, 2));
      }
      a.count += sqlite3_column_int64(s, 1);
      a.last_step = sqlite3_column_int64(s, 3);
      if (sqlite3_column_type(s, 4) != SQLITE_NULL) {
        a.addExtremes({sqlite3_column_int64(s, 4), sqlite3_column_int64(s, 5),
                       sqlite3_column_double(s, 6), sqlite3_column_double(s, 7)},
                      {sqlite3_column_int64(s, 8), sqlite3_column_int64(s, 9),
                       sqlite3_column_double(s, 10), sqlite3_column_double(s, 11)});
      }
    }
    if (rc != SQLITE_DONE) checkSqlite(sqlite3_db_handle(s), rc, "reading the pyramid of " + key);
    if (a.open) emit(level, a);
    read_level_.clearBindings();
  }
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
  Statement read_level(db, PyramidWriter::kReadLevelSql);
  Statement upsert(db, PyramidWriter::kUpsertSql);
  PyramidWriter writer(read_rows, read_level, upsert);
  for (const auto& [run_id, key] : curves) writer.rebuild(run_id, key, kMinStep, kMaxStep);
}

}  // namespace deepladder::storage
