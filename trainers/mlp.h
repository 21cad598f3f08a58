// The feed-forward half of a block, no biases: GELU (C -> H -> C, 2 C H parameters) or SwiGLU
// (Shazeer 2020: (silu(x W_gate) * x W_up) W_down, 3 C H parameters; the gate and up projections
// are one fused C -> 2H Linear).
#pragma once

#include <torch/torch.h>

#include "core/options/option_enums.h"

namespace deepladder::trainers {

struct MLPImpl : torch::nn::Module {
  MLPImpl(int64_t d_model, int64_t hidden, MlpKind kind);
  torch::Tensor forward(const torch::Tensor& x);  // (B,T,C) -> (B,T,C)

  bool swiglu;
  int64_t hidden;
  torch::nn::Linear up{nullptr};    // gelu: (C) -> (H); swiglu: (C) -> (2H) = [gate, up]
  torch::nn::Linear down{nullptr};  // (H) -> (C)
};
TORCH_MODULE(MLP);

}  // namespace deepladder::trainers
