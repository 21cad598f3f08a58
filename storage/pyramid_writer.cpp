// Rebuilding the metric pyramid's touched buckets (see pyramid_writer.h).
#include "storage/pyramid_writer.h"

#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <utility>

#include "core/metric_pyramid.h"
#include "storage/chunked_rows.h"
#include "storage/statement.h"

namespace deepladder::storage {

namespace {

constexpr int64_t kMinStep = std::numeric_limits<int64_t>::min();
constexpr int64_t kMaxStep = std::numeric_limits<int64_t>::max();
constexpr double kNullValue = std::numeric_limits<double>::quiet_NaN();
// The bucket upsert, up to 64 buckets a statement (storage/chunked_rows.h): a curve's run_id,
// key_id and the level are the statement's parameters ?1, ?2 and ?3, then each bucket's 12 columns.
const ChunkSql& bucketUpsert() {
  static const ChunkSql sql(64, 3, 12, [](const std::string& values) {
    return "INSERT INTO metric_pyramid(run_id, key_id, level, bucket, count, first_step, "
           "last_step, min_step, min_tokens, min_flops, min_value, max_step, max_tokens, "
           "max_flops, max_value) VALUES " +
           values +
           " ON CONFLICT(run_id, key_id, level, bucket) DO UPDATE SET count = excluded.count, "
           "first_step = excluded.first_step, last_step = excluded.last_step, "
           "min_step = excluded.min_step, min_tokens = excluded.min_tokens, "
           "min_flops = excluded.min_flops, min_value = excluded.min_value, "
           "max_step = excluded.max_step, max_tokens = excluded.max_tokens, "
           "max_flops = excluded.max_flops, max_value = excluded.max_value";
  });
  return sql;
}

}  // namespace

// One bucket being filled in step order, from rows (level 0) or from the finer level's buckets.
struct PyramidWriter::Bucket {
  int64_t bucket = 0, count = 0, first_step = 0, last_step = 0;
  bool finite = false;  // min and max hold a point
  Point min{}, max{};

  void addExtremes(const Point& lo, const Point& hi) {
    // Ties keep the earliest point, as decimating the raw rows does: input comes in step order.
    if (!finite || lo.value < min.value) min = lo;
    if (!finite || hi.value > max.value) max = hi;
    finite = true;
  }
};

PyramidWriter::PyramidWriter(Prepare prepare)
    : prepare_(std::move(prepare)), upserts_(bucketUpsert(), prepare_) {}

int64_t PyramidWriter::lastStoredStep(int64_t run_id, int64_t key_id) {
  Statement& select = prepare_("SELECT max(step) FROM metrics WHERE run_id = ?1 AND key_id = ?2");
  ResetOnExit reset{select};
  select.bind(1, run_id);
  select.bind(2, key_id);
  const int64_t step = select.step() && !select.columnIsNull(0) ? select.columnInt(0) : kMinStep;
  return step;
}

void PyramidWriter::readRows(int64_t run_id, int64_t key_id, int64_t lo, int64_t hi,
                             std::vector<Point>& out) {
  Statement& select = prepare_(
      "SELECT step, tokens, flops, value FROM metrics WHERE run_id = ?1 AND key_id = ?2 "
      "AND step BETWEEN ?3 AND ?4 ORDER BY step");
  ResetOnExit reset{select};
  select.bind(1, run_id);
  select.bind(2, key_id);
  select.bind(3, lo);
  select.bind(4, hi);
  sqlite3_stmt* s = select.handle();
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    out.push_back(
        Point{sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), sqlite3_column_double(s, 2),
              sqlite3_column_type(s, 3) == SQLITE_NULL ? kNullValue : sqlite3_column_double(s, 3)});
  }
  if (rc != SQLITE_DONE)
    checkSqlite(sqlite3_db_handle(s), rc,
                "reading metric rows of key id " + std::to_string(key_id));
}

void PyramidWriter::readBuckets(int64_t run_id, int64_t key_id, int level, int64_t first,
                                int64_t last, std::vector<Bucket>& out) {
  if (last < first) return;
  Statement& select = prepare_(
      "SELECT bucket, count, first_step, last_step, min_step, min_tokens, min_flops, min_value, "
      "max_step, max_tokens, max_flops, max_value FROM metric_pyramid "
      "WHERE run_id = ?1 AND key_id = ?2 AND level = ?3 AND bucket BETWEEN ?4 AND ?5 ORDER BY "
      "bucket");
  ResetOnExit reset{select};
  select.bind(1, run_id);
  select.bind(2, key_id);
  select.bind(3, static_cast<int64_t>(level));
  select.bind(4, first);
  select.bind(5, last);
  sqlite3_stmt* s = select.handle();
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    Bucket b;
    b.bucket = sqlite3_column_int64(s, 0);
    b.count = sqlite3_column_int64(s, 1);
    b.first_step = sqlite3_column_int64(s, 2);
    b.last_step = sqlite3_column_int64(s, 3);
    b.finite = sqlite3_column_type(s, 4) != SQLITE_NULL;
    if (b.finite) {
      b.min = {sqlite3_column_int64(s, 4), sqlite3_column_int64(s, 5), sqlite3_column_double(s, 6),
               sqlite3_column_double(s, 7)};
      b.max = {sqlite3_column_int64(s, 8), sqlite3_column_int64(s, 9), sqlite3_column_double(s, 10),
               sqlite3_column_double(s, 11)};
    }
    out.push_back(b);
  }
  if (rc != SQLITE_DONE)
    checkSqlite(sqlite3_db_handle(s), rc,
                "reading the pyramid of key id " + std::to_string(key_id));
}

void PyramidWriter::upsert(int64_t run_id, int64_t key_id, int level,
                           const std::vector<Bucket>& rows) {
  writeInChunks(
      rows.size(), upserts_,
      [&](sqlite3_stmt* up) {
        return sqlite3_bind_int64(up, 1, run_id) | sqlite3_bind_int64(up, 2, key_id) |
               sqlite3_bind_int(up, 3, level);
      },
      [&](sqlite3_stmt* up, size_t i, int p) {
        const Bucket& b = rows[i];
        int rc = sqlite3_bind_int64(up, p + 1, b.bucket) | sqlite3_bind_int64(up, p + 2, b.count) |
                 sqlite3_bind_int64(up, p + 3, b.first_step) |
                 sqlite3_bind_int64(up, p + 4, b.last_step);
        if (b.finite) {
          rc |= sqlite3_bind_int64(up, p + 5, b.min.step) |
                sqlite3_bind_int64(up, p + 6, b.min.tokens) |
                sqlite3_bind_double(up, p + 7, b.min.flops) |
                sqlite3_bind_double(up, p + 8, b.min.value) |
                sqlite3_bind_int64(up, p + 9, b.max.step) |
                sqlite3_bind_int64(up, p + 10, b.max.tokens) |
                sqlite3_bind_double(up, p + 11, b.max.flops) |
                sqlite3_bind_double(up, p + 12, b.max.value);
        } else {
          for (int c = 5; c <= 12; ++c) rc |= sqlite3_bind_null(up, p + c);
        }
        return rc;
      },
      "metric pyramid rows");
}

int64_t PyramidWriter::rebuild(int64_t run_id, int64_t key_id, const std::vector<Point>& points,
                               bool appended) {
  if (points.empty()) return 0;
  return rebuildRange(run_id, key_id, points.front().step, points.back().step,
                      appended ? &points : nullptr);
}

int64_t PyramidWriter::rebuildAll(int64_t run_id, int64_t key_id) {
  return rebuildRange(run_id, key_id, kMinStep, kMaxStep, nullptr);
}

int64_t PyramidWriter::rebuildRange(int64_t run_id, int64_t key_id, int64_t lo, int64_t hi,
                                    const std::vector<Point>* appended) {
  // Level 0: the touched buckets from their rows, as `metrics` holds them now.
  const int shift0 = pyramidShift(0);
  const int64_t read_lo = lo - (lo & ((int64_t{1} << shift0) - 1));  // lo rounded toward -inf
  const int64_t read_hi =
      (hi >> shift0) >= (kMaxStep >> shift0) ? kMaxStep : (((hi >> shift0) + 1) << shift0) - 1;
  std::vector<Point> rows;
  if (appended) {
    // Stored rows can only precede the new ones, within lo's bucket.
    if (read_lo < lo) readRows(run_id, key_id, read_lo, lo - 1, rows);
    rows.reserve(rows.size() + appended->size());
    for (size_t i = 0; i < appended->size(); ++i)
      if (i + 1 == appended->size() || (*appended)[i + 1].step != (*appended)[i].step)
        rows.push_back((*appended)[i]);  // a repeated step: the last one
  } else {
    readRows(run_id, key_id, read_lo, read_hi, rows);
  }
  std::vector<Bucket> finer;
  for (const Point& p : rows) {
    const int64_t b = pyramidBucket(p.step, 0);
    if (finer.empty() || finer.back().bucket != b) {
      finer.emplace_back();
      finer.back().bucket = b;
      finer.back().first_step = p.step;
    }
    Bucket& bucket = finer.back();
    ++bucket.count;
    bucket.last_step = p.step;
    if (std::isfinite(p.value)) bucket.addExtremes(p, p);
  }
  upsert(run_id, key_id, 0, finer);
  int64_t written = static_cast<int64_t>(finer.size());

  // Coarser levels: each touched bucket from the finer buckets it is made of: the touched ones in
  // memory, and the stored ones beside them at the edges.
  constexpr int kFan = kPyramidFanOutShift;
  for (int level = 1; level < kPyramidLevels; ++level) {
    const int64_t touched_lo = pyramidBucket(lo, level - 1),
                  touched_hi = pyramidBucket(hi, level - 1);
    const int64_t b_lo = pyramidBucket(lo, level), b_hi = pyramidBucket(hi, level);
    std::vector<Bucket> children;
    readBuckets(run_id, key_id, level - 1, b_lo * (1 << kFan), touched_lo - 1, children);
    children.insert(children.end(), finer.begin(), finer.end());
    if (!appended)  // after appended steps nothing is stored
      readBuckets(run_id, key_id, level - 1, touched_hi + 1, b_hi * (1 << kFan) + (1 << kFan) - 1,
                  children);
    std::vector<Bucket> coarser;
    for (const Bucket& child : children) {
      const int64_t b = child.bucket >> kFan;
      if (coarser.empty() || coarser.back().bucket != b) {
        coarser.emplace_back();
        coarser.back().bucket = b;
        coarser.back().first_step = child.first_step;
      }
      Bucket& bucket = coarser.back();
      bucket.count += child.count;
      bucket.last_step = child.last_step;
      if (child.finite) bucket.addExtremes(child.min, child.max);
    }
    upsert(run_id, key_id, level, coarser);
    written += static_cast<int64_t>(coarser.size());
    finer = std::move(coarser);
  }
  return written;
}

void buildPyramidForAllMetrics(sqlite3* db) {
  std::vector<std::pair<int64_t, int64_t>> curves;
  {
    Statement select(db, "SELECT DISTINCT run_id, key_id FROM metrics ORDER BY run_id, key_id");
    while (select.step()) curves.emplace_back(select.columnInt(0), select.columnInt(1));
  }
  std::map<std::string, std::unique_ptr<Statement>> statements;
  PyramidWriter writer([&](const std::string& sql) -> Statement& {
    auto& statement = statements[sql];
    if (!statement) statement = std::make_unique<Statement>(db, sql);
    statement->reset();
    return *statement;
  });
  for (const auto& [run_id, key_id] : curves) writer.rebuildAll(run_id, key_id);
}

}  // namespace deepladder::storage
