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

double flopsPerToken(const ModelConfig& m, bool after_growth) {
  const ParameterCounts c = countParameters(m);
  const double executed = static_cast<double>(executedBlocks(m, after_growth));
  const double dense =
      6.0 * (executed * static_cast<double>(c.per_block) + static_cast<double>(c.unembedding));
  const double attention = 6.0 * executed * static_cast<double>(m.d_model) * m.seq_len;
  return dense + attention;
}

double flopsAfterSteps(const ModelConfig& m, int64_t total_steps, int64_t steps_done,
                       int64_t tokens_per_step) {
  const int64_t crossover = growthStep(m, total_steps);
  const double per_step_low = flopsPerToken(m, false) * static_cast<double>(tokens_per_step);
  if (crossover < 0 || steps_done <= crossover)
    return per_step_low * static_cast<double>(steps_done);
  const double per_step_high = flopsPerToken(m, true) * static_cast<double>(tokens_per_step);
  return per_step_low * static_cast<double>(crossover) +
         per_step_high * static_cast<double>(steps_done - crossover);
}

double trainingFlops(const ModelConfig& m, int64_t steps, int64_t tokens_per_step) {
  return flopsAfterSteps(m, steps, steps, tokens_per_step);
}

}  // namespace deepladder
