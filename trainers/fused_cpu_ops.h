// The switch between the fused CPU kernels (causal attention, RMSNorm, ...) and the plain
// LibTorch composition they replace. The fused kernels are simply the CPU float32 path; the
// composition stays the path for CUDA tensors, other dtypes and autocast, and the reference the
// tests and tests/bench/trainer_bench.cpp compare against (they turn the fused path off).
// Process-wide, not a run option: both paths compute the same function to fp32 rounding.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

bool fusedCpuOpsEnabled();
void setFusedCpuOpsEnabled(bool on);

// True when `x` takes the fused CPU path: enabled, a float32 tensor, and fusedCpuOpsRun
// (core/fused_cpu_ops_rule.h): on the CPU, no autocast.
bool useFusedCpuPath(const torch::Tensor& x);

// How many threads an at::parallel_for of `items` unit items compiled like the fused kernels
// splits over (LibTorch's intra-op threads when the trainers are built with OpenMP, else 1).
// Tests check it, so that the kernels never silently fall back to one thread again.
int fusedCpuLoopThreads(int64_t items);

}  // namespace deepladder::trainers
