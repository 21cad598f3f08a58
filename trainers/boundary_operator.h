// The boundary operator between core passes: BO(h, e) = RMSNorm(h) + alpha * e, with a
// non-parametric RMSNorm (no learned gain) over the last dimension. Used by the prelude/core/coda
// model (trainers/depth_model.h) and the squaring model. On CUDA tensors, when the fused kernels
// are built (DEEPLADDER_HAVE_CUDA_KERNELS), it dispatches to trainers/cuda's fused op.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

// h, e: (..., C), same shape -> h / sqrt(mean(h^2, -1) + eps) + alpha * e, shape (..., C). eps = 0:
// the machine epsilon of h's compute type (normEpsilon, trainers/rms_norm.h).
torch::Tensor boundaryOperator(const torch::Tensor& h, const torch::Tensor& e, double alpha,
                               double eps = 1e-6);

// The normalisation alone: h / sqrt(mean(h^2, -1) + eps) (the plain-stack boundary form and the
// operator's first term).
torch::Tensor parameterFreeRmsNorm(const torch::Tensor& h, double eps = 1e-6);

}  // namespace deepladder::trainers
