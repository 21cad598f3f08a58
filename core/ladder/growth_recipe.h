// The published growth ladder's recipe as arithmetic: shapes from the depth d, parameter counts,
// step counts, crossover steps, FLOPs and depth-scaled learning rates, exactly as the paper's
// training code computes them. Torch-free, so `plan` can be checked by hand before anyone spends a
// GPU-hour.
//
//   width w = 128 d, heads d (head dim 128), sequence T = 2048, vocabulary V = 50304 (50257 padded)
//   SwiGLU hidden H = 256 ceil(floor(8 w / 3) / 256); no norm gains, no biases
//   block matrices 4 w^2 + 3 w H; N = L_distinct (4 w^2 + 3 w H) + 2 V w (embedding + head)
//   m(L) = L (4 w^2 + 3 w H) + w V;  F(L) = 6 m(L) + 6 L w (T + 1)   (per token)
//   fixed arms: S = round_half_even(TPP N / B); C = B S F(L)
//   grow arms:  S = round_half_even(TPP N_K2 / B x m(L2) / (f m(L2) + (1 - f) m(L4)));
//               c = int(f S); C = B (c F(L2) + (S - c) F(L4))
//   LR(d) = LR(8) (N(8) / N(d))^g          (N of the K = 2 model for grow arms)
#pragma once

#include <cstdint>
#include <string>

namespace deepladder::ladder {

struct RecipeGlobals {
  int64_t width_per_depth = 128;
  int64_t head_dim = 128;
  int64_t seq_len = 2048;
  int64_t vocab = 50257;
  int64_t vocab_padded = 50304;
  int64_t batch_tokens = 524288;  // 256 x 2048
  double matrix_lr_d8 = 0.04;
  int64_t hidden_multiple = 256;  // H = multiple x ceil(floor(8 w / 3) / multiple)
};

// How an arm runs its blocks: plain stack, or prelude/core/coda with K passes (tied or untied)
// growing from K = 2 to K = 4 at a fraction f.
struct RecipeArmShape {
  bool pcc = false;
  bool tied = false;
  int64_t passes = 1;       // K before growth (pcc)
  int64_t grow_passes = 0;  // K after growth (0 = none)
  bool deep_stack = false;  // deep_vanilla: p + 2c + o plain blocks (deep_vanilla_grow: grows
                            // by stacking to p + 4c + o, deepladder's analogue of the grow arms)
};

RecipeArmShape recipeArmShape(const std::string& preset);

struct RecipeRung {
  int64_t depth = 0;
  int64_t width = 0;
  int64_t heads = 0;
  int64_t hidden = 0;
  int64_t block_matrix_params = 0;  // 4 w^2 + 3 w H
  int64_t blocks_low = 0;           // L executed before growth (L2 for grow arms)
  int64_t blocks_high = 0;          // L executed after growth (L4), == blocks_low otherwise
  int64_t distinct_blocks = 0;      // blocks with their own parameters in N
  int64_t params = 0;               // N (embedding and head included; K = 2 count for grow arms)
  int64_t steps = 0;                // S
  int64_t crossover = -1;           // c, -1 without growth
  double flops_per_token_low = 0;   // F(L_low)
  double flops_per_token_high = 0;  // F(L_high)
  double flops = 0;                 // C
  int64_t tokens = 0;               // B S
  double matrix_lr = 0;             // LR(d)
};

// H = multiple ceil(floor(8 w / 3) / multiple); the paper's multiple is 256 (smaller ones keep
// H near 8w/3 at CPU-replica widths).
int64_t swigluHidden(int64_t width, int64_t multiple = 256);
// m(L) and F(L) for a rung of width w with hidden H.
double recipeM(int64_t blocks, int64_t width, int64_t hidden, int64_t vocab_padded);
double recipeFlopsPerToken(int64_t blocks, int64_t width, int64_t hidden, int64_t vocab_padded,
                           int64_t seq_len);
// Round half to even, as Python's round().
int64_t roundHalfEven(double value);

// Everything about one (arm, depth) rung. `tpp` tokens per parameter, `g` the LR depth
// exponent, `crossover_fraction` f for grow arms.
RecipeRung planRecipeRung(const RecipeGlobals& globals, const RecipeArmShape& arm, int64_t depth,
                          double tpp, double g, double crossover_fraction);

}  // namespace deepladder::ladder
