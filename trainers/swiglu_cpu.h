// Fused SwiGLU activation for CPU float32 tensors: for h = [a, b] (the MLP's up projection,
// gate half first), y = silu(a) * b = a sigmoid(a) b in one pass over the rows
// (at::parallel_for) instead of the composition's chunk, silu and multiply (and their backward
// nodes). Saves h. Gradients, with s = sigmoid(a):
//   da = dy b s (1 + a (1 - s)),   db = dy a s.
// mlp.cpp dispatches here on the fused CPU path (fused_cpu_ops.h); the composition there is the
// reference. First derivatives only.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

// h (..., 2H) float32 on the CPU -> (..., H).
torch::Tensor swigluCpu(const torch::Tensor& h);

}  // namespace deepladder::trainers
