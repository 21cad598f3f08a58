// Where the fused fp32 CPU kernels (trainers/fused_cpu_ops.h) run: the one rule shared by the
// trainers' switch and the memory model (core/memory_model.cpp), which counts what those kernels
// keep for the backward instead of what LibTorch's composition keeps.
#pragma once

#include "core/options/option_enums.h"

namespace deepladder {

// The fused kernels are the CPU path of fp32 math; CUDA, and bf16 runs (CPU autocast), keep
// LibTorch's composition.
constexpr bool fusedCpuOpsRun(bool on_cpu, Precision math_precision) {
  return on_cpu && math_precision == Precision::fp32;
}

}  // namespace deepladder
