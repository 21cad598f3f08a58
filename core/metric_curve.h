// A metric curve as plain data: its points (step, tokens, FLOPs, value, wall time) and, when it
// was read through the metric pyramid (core/metric_pyramid.h), the level and the step range it
// covers. storage reads curves into it (Database::readCurve, readMetricRange); the plots draw
// from it without linking storage.
#pragma once

#include <cstdint>
#include <vector>

namespace deepladder {

// One point of one metric curve.
struct MetricPoint {
  int64_t step;
  int64_t tokens;
  double flops;
  double value;  // NaN when the logged value was NaN (or Inf becomes +-Inf, kept as is)
  double wall;
};

// What a plot reads of one curve (storage's Database::readCurve): the points of the pyramid level
// that matches the pixels asked for (each bucket's min and max point, in step order), or every row
// when zoomed in further than the finest level.
struct MetricCurve {
  int level = -1;                     // -1: full resolution
  int64_t bucket_steps = 1;           // steps one bucket spans (1 at full resolution)
  int64_t step_lo = 0, step_hi = -1;  // the step range read (empty when hi < lo)
  std::vector<MetricPoint> points;    // ascending step
  int64_t rows = 0;                   // the metric rows those points stand for
};

}  // namespace deepladder
