// Parameter counts and FLOPs per token (see flop_model.h).
#include "core/flop_model.h"

#include "core/architecture.h"

namespace deepladder {

ParameterCounts countParameters(const ModelConfig& m) {
  ParameterCounts c;
  const int64_t d = m.d_model;
  const int64_t hidden = m.mlpHidden();
  const int64_t mlp = (m.mlp == MlpKind::swiglu ? 3 : 2) * d * hidden;
  const ArchitectureShape shape = architectureShape(m);
  const int64_t vocab_rows = m.vocab_padded > 0 ? m.vocab_padded : m.vocab_size;
  const int64_t gain = m.norm_gain ? 1 : 0;  // norms without a learned gain have no parameters
  const int64_t head_dim = m.n_head > 0 ? d / m.n_head : 0;
  c.embedding = vocab_rows * d;
  c.per_block = 4 * d * d + mlp + gain * (2 * d + (m.qk_norm ? 2 * head_dim : 0));
  c.blocks = shape.before.distinct_blocks * c.per_block;
  c.blocks_after_growth = shape.after.distinct_blocks * c.per_block;
  c.final_norm = gain * d * (m.embed_norm ? 2 : 1);  // final norm (and the embedding norm)
  c.unembedding = vocab_rows * d;
  const int64_t rest = c.embedding + c.final_norm + (m.tie_embeddings ? 0 : c.unembedding);
  c.total = c.blocks + rest;
  c.total_after_growth = c.blocks_after_growth + rest;
  return c;
}

int64_t executedBlocks(const ModelConfig& m, bool after_growth) {
  const ArchitectureShape shape = architectureShape(m);
  return after_growth ? shape.after.executed_blocks : shape.before.executed_blocks;
}

double flopsPerTokenOf(int64_t executed_blocks, int64_t per_block_params,
                       int64_t unembedding_params, int64_t d_model, int64_t seq_len) {
  const double executed = static_cast<double>(executed_blocks);
  const double dense = 6.0 * (executed * static_cast<double>(per_block_params) +
                              static_cast<double>(unembedding_params));
  const double attention =
      6.0 * executed * static_cast<double>(d_model) * static_cast<double>(seq_len + 1);
  return dense + attention;
}

double phasedTrainingFlops(double flops_per_token_low, double flops_per_token_high,
                           int64_t crossover, int64_t steps_done, int64_t tokens_per_step) {
  const double tokens = static_cast<double>(tokens_per_step);
  if (crossover < 0 || steps_done <= crossover)
    return tokens * (static_cast<double>(steps_done) * flops_per_token_low);
  return tokens * (static_cast<double>(crossover) * flops_per_token_low +
                   static_cast<double>(steps_done - crossover) * flops_per_token_high);
}

double flopsPerToken(const ModelConfig& m, bool after_growth) {
  const ParameterCounts c = countParameters(m);
  return flopsPerTokenOf(executedBlocks(m, after_growth), c.per_block, c.unembedding, m.d_model,
                         m.seq_len);
}

double flopsAfterSteps(const ModelConfig& m, int64_t total_steps, int64_t steps_done,
                       int64_t tokens_per_step) {
  const int64_t crossover = growthStep(m, total_steps);
  const double high = crossover < 0 ? 0.0 : flopsPerToken(m, true);
  return phasedTrainingFlops(flopsPerToken(m, false), high, crossover, steps_done, tokens_per_step);
}

double trainingFlops(const ModelConfig& m, int64_t steps, int64_t tokens_per_step) {
  return flopsAfterSteps(m, steps, steps, tokens_per_step);
}

}  // namespace deepladder
