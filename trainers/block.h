// One pre-norm transformer block: h = x + r attn(s norm(x)), then h + r mlp(s norm(h)), with
// r = ModelConfig::residual_scale (1 unless the growth recipe sets it) and s = 1 unless the model
// uses LayerNorm scaling (s = 1/sqrt(l) at the l-th executed block). The norms have a learned gain
// unless norm_gain = false; the attention has QK-norm when qk_norm is set.
#pragma once

#include <torch/torch.h>

#include "core/run_config.h"
#include "trainers/attention.h"
#include "trainers/mlp.h"
#include "trainers/rms_norm.h"

namespace deepladder::trainers {

struct BlockImpl : torch::nn::Module {
  explicit BlockImpl(const ModelConfig& config);
  // (B,T,C) -> (B,T,C); norm_scale multiplies both pre-norm outputs.
  torch::Tensor forward(const torch::Tensor& x, double norm_scale = 1.0);

  double residual_scale = 1.0;  // r
  RMSNorm attn_norm{nullptr};
  CausalSelfAttention attn{nullptr};
  RMSNorm mlp_norm{nullptr};
  MLP mlp{nullptr};
};
TORCH_MODULE(Block);

}  // namespace deepladder::trainers
