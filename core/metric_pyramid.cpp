// The pyramid level that matches a plot's pixels (see metric_pyramid.h).
#include "core/metric_pyramid.h"

namespace deepladder {

int pyramidLevelForPixels(int64_t span_steps, int pixels) {
  if (pixels <= 0 || span_steps <= 0) return -1;
  int level = -1;
  for (int l = 0; l < kPyramidLevels; ++l)
    if (pyramidBucketSteps(l) * pixels <= 2 * span_steps) level = l;
  return level;
}

}  // namespace deepladder
