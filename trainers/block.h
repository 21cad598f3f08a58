// One pre-norm transformer block: x + attn(s norm(x)), then + mlp(s norm(x)), with s = 1 unless
// the model uses LayerNorm scaling (s = 1/sqrt(l) at the l-th executed block).
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

  RMSNorm attn_norm{nullptr};
  CausalSelfAttention attn{nullptr};
  RMSNorm mlp_norm{nullptr};
  MLP mlp{nullptr};
};
TORCH_MODULE(Block);

}  // namespace deepladder::trainers
