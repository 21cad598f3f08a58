// Parameter counts and FLOPs per token (see flop_model.h).
#include "core/flop_model.h"

namespace deepladder {

ParameterCounts countParameters(const ModelConfig& m) {
  ParameterCounts c;
  const int64_t d = m.d_model;
  const int64_t hidden = m.mlpHidden();
  const int64_t mlp = (m.mlp == "swiglu" ? 3 : 2) * d * hidden;
  c.embedding = m.vocab_size * d;
  c.per_block = 4 * d * d + mlp + 2 * d;
  c.blocks = m.n_layer * c.per_block;
  c.final_norm = d;
  c.unembedding = m.vocab_size * d;
  c.total = c.embedding + c.blocks + c.final_norm + (m.tie_embeddings ? 0 : c.unembedding);
  return c;
}

double flopsPerToken(const ModelConfig& m) {
  const ParameterCounts c = countParameters(m);
  const double dense = 6.0 * static_cast<double>(c.blocks + c.unembedding);
  const double attention = 6.0 * static_cast<double>(m.n_layer) * m.d_model * m.seq_len;
  return dense + attention;
}

}  // namespace deepladder
