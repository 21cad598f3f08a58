// The boundary operator BO(h, e) = RMSNorm(h) + alpha * e (non-parametric RMSNorm over the last
// dimension) as a LibTorch autograd function: fused CUDA kernels for float32/bfloat16 tensors on
// a GPU, the CPU reference (kernels/boundary_operator_reference.h) otherwise. Gradients flow to
// h and e; alpha is a config constant.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers::fused {

// h, e: (..., C), same shape, dtype and device -> (..., C).
torch::Tensor boundaryOperator(const torch::Tensor& h, const torch::Tensor& e, double alpha,
                               double eps = 1e-6);

}  // namespace deepladder::trainers::fused
