// Causal multi-head self-attention with rotary position embedding, no biases, no dropout.
// One fused qkv projection (d -> 3d) and an output projection (d -> d): 4 d^2 parameters, as
// core/flop_model.h counts them.
#pragma once

#include <torch/torch.h>

#include "trainers/rotary.h"

namespace deepladder::trainers {

struct CausalSelfAttentionImpl : torch::nn::Module {
  CausalSelfAttentionImpl(int64_t d_model, int64_t n_head, int64_t max_seq_len, double rope_base);
  torch::Tensor forward(const torch::Tensor& x);  // (B,T,C) -> (B,T,C)

  int64_t n_head, head_dim;
  torch::nn::Linear qkv{nullptr};   // (C) -> (3C)
  torch::nn::Linear proj{nullptr};  // (C) -> (C)
  Rotary rotary{nullptr};
  torch::Tensor causal_bias;  // (T,T): 0 on and below the diagonal, -inf above (LibTorch 1.x only)
};
TORCH_MODULE(CausalSelfAttention);

}  // namespace deepladder::trainers
