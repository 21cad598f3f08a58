// Rotary position embedding (Su et al. 2021, "RoFormer"): rotates each pair of channels of the
// queries and keys by an angle proportional to the position, so that q.k depends only on the
// relative offset. Uses the "rotate half" layout: channel i pairs with channel i + head_dim/2.
// The cos/sin tables are precomputed buffers for positions [0, max_seq_len): by default in float64,
// stored as float32; with `bf16_tables` as the growth paper computes them (inv_freq, angles, cos
// and sin in float32) and rounded to bfloat16 (stored as float32, which holds them exactly).
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

struct RotaryImpl : torch::nn::Module {
  RotaryImpl(int64_t head_dim, int64_t max_seq_len, double base, bool bf16_tables = false);

  // x: (..., T, D) with T <= max_seq_len, e.g. (B,H,T,D) -> the same shape, rotated by position.
  torch::Tensor forward(const torch::Tensor& x);

  torch::Tensor cos;  // (max_seq_len, D)
  torch::Tensor sin;  // (max_seq_len, D), sign folded in for the rotate-half form
};
TORCH_MODULE(Rotary);

}  // namespace deepladder::trainers
