// Internal to storage/: recomputes the buckets of the metric decimation pyramid
// (metric_pyramid.h) that a write of metric rows touched, from the rows themselves. Because each
// touched bucket is rebuilt from what `metrics` holds (never merged with what the bucket held
// before), writing the same rows again, or a resumed run rewriting steps with new values, leaves
// the pyramid exactly as if the final rows had been written once.
#pragma once

#include <cstdint>
#include <string>

struct sqlite3;

namespace deepladder::storage {

class Statement;

class PyramidWriter {
 public:
  // Binds: run_id, key, first step, last step. Returns step, tokens, flops, value by step.
  static const char* const kReadRowsSql;
  // Binds: run_id, key, level, first bucket, last bucket. Returns the buckets' 12 columns.
  static const char* const kReadLevelSql;
  // Binds the 15 columns of one metric_pyramid row; an upsert on its primary key.
  static const char* const kUpsertSql;

  // The statements prepared from the SQL above, on the same connection.
  PyramidWriter(Statement& read_rows, Statement& read_level, Statement& upsert)
      : read_rows_(read_rows), read_level_(read_level), upsert_(upsert) {}

  // Rebuilds every bucket, at every level, that holds a step in [step_lo, step_hi] of the
  // run's `key`: level 0 from the rows, each coarser level from the finer level's buckets.
  // Returns the pyramid rows written.
  int64_t rebuild(int64_t run_id, const std::string& key, int64_t step_lo, int64_t step_hi);

 private:
  Statement& read_rows_;
  Statement& read_level_;
  Statement& upsert_;
};

// Builds the whole pyramid from the metric rows already stored (the v3 -> v4 migration).
void buildPyramidForAllMetrics(sqlite3* db);

}  // namespace deepladder::storage
