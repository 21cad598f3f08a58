// Causal multi-head self-attention with rotary position embedding, no biases, no dropout.
// One fused qkv projection (d -> 3d, rows [q; k; v]) and an output projection (d -> d): 4 d^2
// parameters, as core/flop_model.h counts them. Optional QK-norm (the growth recipe): after the
// rotary embedding, q and k are each RMS-normalized over the head dimension (with a learned gain
// of head_dim when `norm_gain`, none otherwise); the score scale stays 1/sqrt(head_dim).
#pragma once

#include <torch/torch.h>

#include "trainers/rms_norm.h"
#include "trainers/rotary.h"

namespace deepladder::trainers {

struct CausalSelfAttentionImpl : torch::nn::Module {
  CausalSelfAttentionImpl(int64_t d_model, int64_t n_head, int64_t max_seq_len, double rope_base,
                          bool qk_norm = false, bool norm_gain = true, double norm_eps = 1e-6,
                          bool bf16_rotary_tables = false);
  torch::Tensor forward(const torch::Tensor& x);  // (B,T,C) -> (B,T,C)

  int64_t n_head, head_dim;
  torch::nn::Linear qkv{nullptr};   // (C) -> (3C)
  torch::nn::Linear proj{nullptr};  // (C) -> (C)
  Rotary rotary{nullptr};
  RMSNorm q_norm{nullptr};    // (D) QK-norm of the queries, null without QK-norm
  RMSNorm k_norm{nullptr};    // (D) QK-norm of the keys
  torch::Tensor causal_bias;  // (T,T): 0 on and below the diagonal, -inf above (LibTorch 1.x only)
};
TORCH_MODULE(CausalSelfAttention);

}  // namespace deepladder::trainers
