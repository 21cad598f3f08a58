// Fused RMSNorm for CPU float32 tensors: y = x / sqrt(mean(x^2) + eps) * g over the last
// dimension, forward and backward each one pass over the rows (at::parallel_for) instead of the
// composition's pow, mean, add, rsqrt and two multiplies (and their backward nodes). Saves x and
// the per-row 1/rms. Gradients: with u = g * dy (dy without a gain),
//   dx = r (u - x r^2 mean(u x)),   dg = sum over rows of dy x r,   r = 1/rms.
// rms_norm.cpp dispatches here on the fused CPU path (fused_cpu_ops.h); the composition there
// is the reference. First derivatives only.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

// x (..., C) float32 on the CPU; gain (C) or undefined -> (..., C).
torch::Tensor rmsNormCpu(const torch::Tensor& x, const torch::Tensor& gain, double eps);

}  // namespace deepladder::trainers
