// One pre-norm transformer block: x + attn(norm(x)), then + mlp(norm(x)).
#pragma once

#include <torch/torch.h>

#include "core/run_config.h"
#include "trainers/attention.h"
#include "trainers/mlp.h"
#include "trainers/rms_norm.h"

namespace deepladder::trainers {

struct BlockImpl : torch::nn::Module {
  explicit BlockImpl(const ModelConfig& config);
  torch::Tensor forward(const torch::Tensor& x);  // (B,T,C) -> (B,T,C)

  RMSNorm attn_norm{nullptr};
  CausalSelfAttention attn{nullptr};
  RMSNorm mlp_norm{nullptr};
  MLP mlp{nullptr};
};
TORCH_MODULE(Block);

}  // namespace deepladder::trainers
