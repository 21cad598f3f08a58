// RMSNorm: y = x / sqrt(mean(x^2) + eps) * g over the last dimension, with a learned gain g, or
// without one (ModelConfig::norm_gain = false, the growth recipe: then the module has no
// parameters at all). No bias, no mean subtraction (Zhang & Sennrich 2019).
// eps = 0 (ModelConfig::norm_eps's default) stands for the machine epsilon of the input's compute
// type, what torch's rms_norm uses when called with eps=None as the growth paper does.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

// The eps a norm adds for `configured` (ModelConfig::norm_eps) on an input of `dtype`: itself
// when positive; else the machine epsilon of the type torch's rms_norm computes in (float32 for
// float32, bfloat16 and float16 inputs: 2^-23; float64: 2^-52).
double normEpsilon(double configured, torch::ScalarType dtype);

struct RMSNormImpl : torch::nn::Module {
  explicit RMSNormImpl(int64_t dim, double eps = 1e-6, bool learned_gain = true);
  torch::Tensor forward(const torch::Tensor& x);  // (..., C) -> (..., C)

  torch::Tensor gain;  // (C), initialised to ones; undefined without a learned gain
  double eps;          // 0: normEpsilon of the input's dtype
};
TORCH_MODULE(RMSNorm);

}  // namespace deepladder::trainers
