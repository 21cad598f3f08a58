// The growth ladder's recipe arithmetic (see growth_recipe.h).
#include "core/ladder/growth_recipe.h"

#include <cmath>
#include <stdexcept>

#include "core/architecture.h"
#include "core/errors.h"
#include "core/flop_model.h"

namespace deepladder::ladder {

RecipeArmShape recipeArmShape(const std::string& preset) {
  const ArmPreset* row = findArmPreset(preset);  // the one preset table (core/architecture.h)
  if (!row) throw std::invalid_argument("the growth recipe has no arm \"" + preset + "\"");
  RecipeArmShape s;
  s.pcc = row->pcc;
  s.tied = row->tied;
  s.passes = row->pcc ? row->passes : 1;
  s.grow_passes = row->grow_passes;
  s.deep_stack = row->deep_stack;
  return s;
}

int64_t swigluHidden(int64_t w, int64_t multiple) {
  return multiple * ((8 * w / 3 + multiple - 1) / multiple);
}

double recipeM(int64_t blocks, int64_t w, int64_t hidden, int64_t vocab_padded) {
  return static_cast<double>(blocks) * static_cast<double>(4 * w * w + 3 * w * hidden) +
         static_cast<double>(w) * static_cast<double>(vocab_padded);
}

double recipeFlopsPerToken(int64_t blocks, int64_t w, int64_t hidden, int64_t vocab_padded,
                           int64_t seq_len) {
  // 6 m(L) + 6 L w (T + 1): the FLOP model every run uses (core/flop_model.h).
  return flopsPerTokenOf(blocks, 4 * w * w + 3 * w * hidden, w * vocab_padded, w, seq_len);
}

int64_t roundHalfEven(double v) {
  const double floor_v = std::floor(v);
  const double diff = v - floor_v;
  if (diff > 0.5) return static_cast<int64_t>(floor_v) + 1;
  if (diff < 0.5) return static_cast<int64_t>(floor_v);
  const int64_t f = static_cast<int64_t>(floor_v);
  return (f % 2 == 0) ? f : f + 1;
}

namespace {

struct Counts {
  int64_t distinct = 0, low = 0, high = 0;
};

Counts blockCounts(const RecipeArmShape& arm, int64_t depth) {
  const BlockSplit s = splitPreludeCoreCoda(depth);
  Counts c;
  if (!arm.pcc) {
    c.distinct = c.low = c.high = arm.deep_stack ? s.prelude + 2 * s.core + s.coda : depth;
    if (arm.grow_passes > 0) c.high = s.prelude + arm.grow_passes * s.core + s.coda;
    return c;
  }
  c.low = s.prelude + arm.passes * s.core + s.coda;
  c.high = arm.grow_passes > 0 ? s.prelude + arm.grow_passes * s.core + s.coda : c.low;
  c.distinct = arm.tied ? depth : c.low;  // N uses the K = 2 model for grow arms
  return c;
}

int64_t recipeParams(const RecipeGlobals& g, const RecipeArmShape& arm, int64_t depth) {
  const int64_t w = g.width_per_depth * depth;
  const int64_t block = 4 * w * w + 3 * w * swigluHidden(w, g.hidden_multiple);
  return blockCounts(arm, depth).distinct * block + 2 * g.vocab_padded * w;
}

}  // namespace

RecipeRung planRecipeRung(const RecipeGlobals& g, const RecipeArmShape& arm, int64_t depth,
                          double tpp, double lr_exponent, double f) {
  RecipeRung r;
  r.depth = depth;
  r.width = g.width_per_depth * depth;
  r.heads = r.width / g.head_dim;
  r.hidden = swigluHidden(r.width, g.hidden_multiple);
  r.block_matrix_params = 4 * r.width * r.width + 3 * r.width * r.hidden;
  const Counts counts = blockCounts(arm, depth);
  r.blocks_low = counts.low;
  r.blocks_high = counts.high;
  r.distinct_blocks = counts.distinct;
  r.params = recipeParams(g, arm, depth);
  r.flops_per_token_low =
      recipeFlopsPerToken(r.blocks_low, r.width, r.hidden, g.vocab_padded, g.seq_len);
  r.flops_per_token_high =
      recipeFlopsPerToken(r.blocks_high, r.width, r.hidden, g.vocab_padded, g.seq_len);
  const double batch = static_cast<double>(g.batch_tokens);
  // Steps as a number first: an absurd constant must be refused, not overflow an integer.
  const auto steps = [&](double v) {
    if (!(v >= 0.5) || v * batch > 1e18)
      throw UserError("the recipe gives depth " + std::to_string(depth) + " " +
                      std::to_string(v * batch) + " training tokens (tpp x parameters), " +
                      (v >= 0.5 ? "more than 1e18" : "less than one step of batch_tokens") +
                      ". Check tpp and batch_tokens");
    return roundHalfEven(v);
  };
  if (r.heads < 1)
    throw UserError("head_dim " + std::to_string(g.head_dim) + " is wider than depth " +
                    std::to_string(depth) + "'s width " + std::to_string(r.width) +
                    " (no attention head). Lower head_dim or raise width_per_depth");
  if (arm.grow_passes > 0) {
    const double m_low = recipeM(r.blocks_low, r.width, r.hidden, g.vocab_padded);
    const double m_high = recipeM(r.blocks_high, r.width, r.hidden, g.vocab_padded);
    r.steps = steps(tpp * static_cast<double>(r.params) / batch * m_low /
                    (f * m_low + (1.0 - f) * m_high));
    r.crossover = static_cast<int64_t>(f * static_cast<double>(r.steps));
  } else {
    r.steps = steps(tpp * static_cast<double>(r.params) / batch);
  }
  // C = B (c F(L_low) + (S - c) F(L_high)), through the FLOP model the worker counts with.
  r.flops = phasedTrainingFlops(r.flops_per_token_low, r.flops_per_token_high, r.crossover, r.steps,
                                g.batch_tokens);
  r.tokens = g.batch_tokens * r.steps;
  r.matrix_lr = g.matrix_lr_d8 * std::pow(static_cast<double>(recipeParams(g, arm, 8)) /
                                              static_cast<double>(r.params),
                                          lr_exponent);
  return r;
}

}  // namespace deepladder::ladder
