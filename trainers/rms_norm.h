// RMSNorm with a learned gain: y = x / sqrt(mean(x^2) + eps) * g over the last dimension.
// No bias, no mean subtraction (Zhang & Sennrich 2019).
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

struct RMSNormImpl : torch::nn::Module {
  RMSNormImpl(int64_t dim, double eps = 1e-6);
  torch::Tensor forward(const torch::Tensor& x);  // (..., C) -> (..., C)

  torch::Tensor gain;  // (C), initialised to ones
  double eps;
};
TORCH_MODULE(RMSNorm);

}  // namespace deepladder::trainers
