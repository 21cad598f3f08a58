// The parallel_for grain of the fused CPU kernels' row loops: rows per chunk so that a chunk holds
// about ATen's grain of elements, and small tensors stay serial.
#pragma once

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdint>

namespace deepladder::trainers {

inline int64_t rowGrain(int64_t row_length) {
  return std::max<int64_t>(1, at::internal::GRAIN_SIZE / std::max<int64_t>(1, row_length));
}

}  // namespace deepladder::trainers
