// Pre-norm transformer block (see block.h).
#include "trainers/block.h"

namespace deepladder::trainers {

BlockImpl::BlockImpl(const ModelConfig& c) {
  attn_norm = register_module("attn_norm", RMSNorm(c.d_model));
  attn = register_module("attn", CausalSelfAttention(c.d_model, c.n_head, c.seq_len, c.rope_base));
  mlp_norm = register_module("mlp_norm", RMSNorm(c.d_model));
  mlp = register_module("mlp", MLP(c.d_model, c.mlpHidden(), c.mlp));
}

torch::Tensor BlockImpl::forward(const torch::Tensor& x, double norm_scale) {
  if (norm_scale == 1.0) {
    auto h = x + attn(attn_norm(x));  // (B,T,C)
    return h + mlp(mlp_norm(h));      // (B,T,C)
  }
  auto h = x + attn(attn_norm(x) * norm_scale);  // (B,T,C)
  return h + mlp(mlp_norm(h) * norm_scale);      // (B,T,C)
}

}  // namespace deepladder::trainers
