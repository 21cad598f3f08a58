// The metric decimation pyramid (schema v4, table metric_pyramid): per run and metric key, a few
// levels of buckets over the step axis, each holding the bucket's lowest and highest point, its
// first and last step and its row count, so a plot of a long curve reads a few thousand buckets
// instead of every row. Level l buckets span pyramidBucketSteps(l) = 16 << 2l steps (16, 64,
// 256, 1024, 4096), aligned on multiples of that width, so each bucket is the union of 4 buckets
// of the finer level. Database::writeMetrics keeps the pyramid in step with the rows
// (storage/pyramid_writer.h); Database::readCurve reads the level that matches a plot's pixels.
// Only the level arithmetic lives here (core), so plots can zoom without the database.
#pragma once

#include <cstdint>

namespace deepladder {

inline constexpr int kPyramidLevels = 5;
inline constexpr int kPyramidFinestShift = 4;  // level 0 buckets span 1 << 4 = 16 steps
inline constexpr int kPyramidFanOutShift = 2;  // a bucket is made of 1 << 2 finer ones

// log2 of the steps one bucket of `level` spans.
constexpr int pyramidShift(int level) {
  return kPyramidFinestShift + kPyramidFanOutShift * level;
}
constexpr int64_t pyramidBucketSteps(int level) {
  return int64_t{1} << pyramidShift(level);
}
// The bucket of `level` holding `step` (floor division, negative steps included).
constexpr int64_t pyramidBucket(int64_t step, int level) {
  return step >> pyramidShift(level);
}

// The coarsest level with at least pixels / 2 buckets across `span_steps` steps (bucket width <=
// 2 span / pixels): each bucket gives two points (its min and max), so the plot gets at least a
// point per pixel column, as min/max decimation per column hands it at most two. -1 when even
// level 0 is coarser than that: then the plot reads every row.
int pyramidLevelForPixels(int64_t span_steps, int pixels);

}  // namespace deepladder
