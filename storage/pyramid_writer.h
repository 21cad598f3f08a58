// Internal to storage/: recomputes the buckets of the metric decimation pyramid
// (core/metric_pyramid.h) that a write of metric rows touched. Each touched bucket is rebuilt from
// what `metrics` holds (never merged with what the bucket held before), so writing the same rows
// again, or a resumed run rewriting steps with new values, leaves the pyramid exactly as if the
// final rows had been written once. When a write only appends steps after every stored step of
// a curve (the usual case: a run logging), its rows are taken from memory and only the few
// stored rows and buckets at the touched range's edges are read back.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "storage/chunked_rows.h"

struct sqlite3;

namespace deepladder::storage {

class PyramidWriter {
 public:
  // One row of a curve as the pyramid sees it (value NaN for NULL).
  struct Point {
    int64_t step, tokens;
    double flops, value;
  };
  // Returns the prepared (cached) statement for `sql`, reset and ready to bind.
  using Prepare = std::function<Statement&(const std::string& sql)>;

  explicit PyramidWriter(Prepare prepare);

  // Curves are named by run and metric key id (metric_keys.id, schema v5).
  // The highest stored step of the curve (INT64_MIN when it has none); call before inserting.
  int64_t lastStoredStep(int64_t run_id, int64_t key_id);
  // Rebuilds every bucket, at every level, that holds a step in [points.front().step,
  // points.back().step]: level 0 from the rows, each coarser level from the finer level's
  // buckets. `points`: the rows just written to the curve, by step (a repeated step: the last one
  // counts). `appended`: they all come after every step the curve had before. Returns the
  // pyramid rows written.
  int64_t rebuild(int64_t run_id, int64_t key_id, const std::vector<Point>& points, bool appended);
  // Rebuilds the whole pyramid of one curve from its stored rows.
  int64_t rebuildAll(int64_t run_id, int64_t key_id);

 private:
  struct Bucket;
  int64_t rebuildRange(int64_t run_id, int64_t key_id, int64_t lo, int64_t hi,
                       const std::vector<Point>* appended);
  void readRows(int64_t run_id, int64_t key_id, int64_t lo, int64_t hi, std::vector<Point>& out);
  void readBuckets(int64_t run_id, int64_t key_id, int level, int64_t first, int64_t last,
                   std::vector<Bucket>& out);
  void upsert(int64_t run_id, int64_t key_id, int level, const std::vector<Bucket>& rows);

  Prepare prepare_;
  ChunkStatements upserts_;  // the bucket upserts, by size
};

// Builds the whole pyramid from the metric rows already stored (migrating a v3 database).
void buildPyramidForAllMetrics(sqlite3* db);

}  // namespace deepladder::storage
