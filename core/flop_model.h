// Parameter counts and the FLOP model, from a ModelConfig alone (no LibTorch), so the planner,
// the worker and the tests all agree. The accounting (README, "FLOPs"):
//   per token  F = 6 x (parameters of every block executed, a looped core counted once per pass,
//                       + unembedding)
//                + 6 x executed_blocks x d_model x seq_len    (attention scores, fwd + bwd, causal)
//   training FLOPs = sum over steps of tokens_in_step x F; a growth run sums its two phases.
// The embedding lookup costs no FLOPs and is left out; norm gains count as block parameters; the
// boundary operator has no parameters.
#pragma once

#include <cstdint>

#include "core/run_config.h"

namespace deepladder {

// vocab: the embedding and head rows, vocab_padded when set (the growth recipe pads 50257 to
// 50304), else vocab_size. Norm gains count only with norm_gain (the recipe has none).
struct ParameterCounts {
  int64_t embedding = 0;  // vocab x d_model
  // attention 4 d^2 + MLP (gelu 2 d H, swiglu 3 d H) + norm gains 2 d (+ QK-norm gains 2 d/heads)
  int64_t per_block = 0;
  int64_t blocks = 0;  // distinct blocks x per_block (before growth)
  int64_t blocks_after_growth = 0;
  int64_t final_norm = 0;   // d_model gains of the final norm (+ d_model for embed_norm)
  int64_t unembedding = 0;  // vocab x d_model (shared with the embedding when tied)
  int64_t total = 0;        // distinct trainable parameters before growth (tied count once)
  int64_t total_after_growth = 0;
};

ParameterCounts countParameters(const ModelConfig& model);

// Blocks executed per token (before growth, or after it).
int64_t executedBlocks(const ModelConfig& model, bool after_growth = false);

// FLOPs per trained token (forward + backward), before growth or after it.
double flopsPerToken(const ModelConfig& model, bool after_growth = false);

// Training FLOPs of `steps` steps of `tokens_per_step` tokens, summing the growth phases
// (steps before the crossover at the low depth, the rest at the high depth).
double trainingFlops(const ModelConfig& model, int64_t steps, int64_t tokens_per_step);

// FLOPs spent up to and including step `step` (1-based count of steps done).
double flopsAfterSteps(const ModelConfig& model, int64_t total_steps, int64_t steps_done,
                       int64_t tokens_per_step);

}  // namespace deepladder
