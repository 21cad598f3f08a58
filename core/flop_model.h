// Parameter counts and the FLOP model, from a ModelConfig alone (no LibTorch), so the planner,
// the worker and the tests all agree. The accounting (README, "FLOPs"):
//   per token  F = 6 x (parameters of the blocks executed + unembedding)
//                + 6 x n_layer x d_model x seq_len          (attention scores, fwd + bwd, causal)
//   training FLOPs = sum over steps of tokens_in_step x F.
// The embedding lookup costs no FLOPs and is left out; norm gains count as block parameters.
#pragma once

#include <cstdint>

#include "core/run_config.h"

namespace deepladder {

struct ParameterCounts {
  int64_t embedding = 0;    // vocab x d_model
  int64_t per_block = 0;    // attention 4 d^2 + MLP (gelu 2 d H, swiglu 3 d H) + two norm gains 2 d
  int64_t blocks = 0;       // n_layer x per_block
  int64_t final_norm = 0;   // d_model
  int64_t unembedding = 0;  // vocab x d_model (shared with the embedding when tied)
  int64_t total = 0;        // distinct trainable parameters: tied weights count once
};

ParameterCounts countParameters(const ModelConfig& model);

// FLOPs per trained token under the model above (forward + backward).
double flopsPerToken(const ModelConfig& model);

}  // namespace deepladder
