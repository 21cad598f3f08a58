// Parameter counts and the FLOP model, from a ModelConfig alone (no LibTorch): the one FLOP
// function the planner (core/ladder, the growth recipe's arithmetic included) and the worker both
// call, so a plan's FLOPs and a finished run's are the same number. The accounting
// (docs/ladders.md, "FLOP accounting"), the growth paper's:
//   per token  F = 6 x (parameters of every block executed, a looped core counted once per pass,
//                       + unembedding)
//                + 6 x executed_blocks x d_model x (seq_len + 1)   (attention scores and values,
//                  fwd + bwd: 12 d per attended key, a causal query attends (T + 1) / 2 on average)
//   training FLOPs = tokens_per_step x (sum over steps of F); a growth run sums its two phases:
//                  tokens_per_step x (c F_low + (S - c) F_high).
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

// The primitives every FLOP figure goes through. F for `executed_blocks` blocks of
// `per_block_params` parameters, a head of `unembedding_params`, width d_model, sequence seq_len:
//   6 (executed_blocks per_block_params + unembedding_params) + 6 executed_blocks d_model (T + 1)
double flopsPerTokenOf(int64_t executed_blocks, int64_t per_block_params,
                       int64_t unembedding_params, int64_t d_model, int64_t seq_len);
// FLOPs of the first `steps_done` of a run's steps, crossover c (-1: no growth):
//   tokens_per_step x (steps_done F_low)                          steps_done <= c or no growth
//   tokens_per_step x (c F_low + (steps_done - c) F_high)         after the crossover
double phasedTrainingFlops(double flops_per_token_low, double flops_per_token_high,
                           int64_t crossover, int64_t steps_done, int64_t tokens_per_step);

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
