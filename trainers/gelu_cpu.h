// Fused exact (erf) GELU activation for CPU float32 tensors: y = x Phi(x), Phi(x) =
// (1 + erf(x / sqrt 2)) / 2, forward and backward each one vectorizable pass over the elements
// (at::parallel_for) instead of LibTorch's gelu / gelu_backward kernels and their dispatch.
// erf: its Taylor series for |z| < 1 (where nearly all pre-activations lie; exact to rounding),
// the Abramowitz-Stegun 7.1.26 form beyond (|error| <= 1.5e-7), with exp from fast_exp.h; for
// z <= -1, 1 + erf(z) is computed as erfc(|z|) directly, without the cancellation of
// 1 - erf(|z|). Saves x. Gradient:
//   dx = dy (Phi(x) + x exp(-x^2 / 2) / sqrt(2 pi)).
// mlp.cpp dispatches here on the fused CPU path (fused_cpu_ops.h); torch::gelu (approximate =
// "none") is the reference. First derivatives only.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

// x (...) float32 on the CPU -> (...).
torch::Tensor geluCpu(const torch::Tensor& x);

}  // namespace deepladder::trainers
