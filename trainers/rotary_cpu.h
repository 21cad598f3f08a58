// Fused rotary embedding for CPU float32 tensors: out = x cos + rotate_half(x) sin in one pass
// over the rows (at::parallel_for), instead of the composition's two narrows, a cat, a multiply
// and an addcmul (and their backward nodes). With the sign folded into `sin` (rotary.h),
//   out_i = x_i c_i + x_{i+D/2 mod D} s_i,   dx_j = dy_j c_j + dy_{j+D/2 mod D} s_{j+D/2 mod D}.
// The tables are constants (no gradient). rotary.cpp dispatches here on the fused CPU path
// (fused_cpu_ops.h); the composition there is the reference. First derivatives only.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

// x (..., T, D) float32 on the CPU, cos and sin (>= T, D) -> (..., T, D), contiguous.
torch::Tensor rotaryCpu(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);

}  // namespace deepladder::trainers
