// Self-attention for the serial task: bidirectional with a key padding mask (the "separate"
// layout reads the whole right-aligned prompt) or causal (the "causal" layout), no biases, no
// position rotation (the squaring model adds learned absolute positions to the embedding).
// Kept apart from trainers/attention.h, whose causal rotary attention the LM trainer owns.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers::squaring {

struct SquaringAttentionImpl : torch::nn::Module {
  SquaringAttentionImpl(int64_t d_model, int64_t n_head, bool causal);
  // x (B,T,C); key_bias (B,1,T) additive (0 on real tokens, a large negative number on PAD keys)
  // or an undefined tensor for no padding mask. Returns (B,T,C).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_bias);

  int64_t n_head, head_dim;
  bool causal;
  torch::nn::Linear qkv{nullptr};   // (C) -> (3C)
  torch::nn::Linear proj{nullptr};  // (C) -> (C)
};
TORCH_MODULE(SquaringAttention);

// Additive key bias (B,1,T) from an input mask (B,T) of 1 on real tokens, 0 on PAD.
torch::Tensor keyPaddingBias(const torch::Tensor& input_mask);

}  // namespace deepladder::trainers::squaring
