// RMSNorm: y = x / sqrt(mean(x^2) + eps) * g over the last dimension, with a learned gain g, or
// without one (ModelConfig::norm_gain = false, the growth recipe: then the module has no
// parameters at all). No bias, no mean subtraction (Zhang & Sennrich 2019).
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

struct RMSNormImpl : torch::nn::Module {
  explicit RMSNormImpl(int64_t dim, double eps = 1e-6, bool learned_gain = true);
  torch::Tensor forward(const torch::Tensor& x);  // (..., C) -> (..., C)

  torch::Tensor gain;  // (C), initialised to ones; undefined without a learned gain
  double eps;
};
TORCH_MODULE(RMSNorm);

}  // namespace deepladder::trainers
