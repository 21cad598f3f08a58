// Pre-norm transformer block (see block.h).
#include "trainers/block.h"

namespace deepladder::trainers {

BlockImpl::BlockImpl(const ModelConfig& c) : residual_scale(c.residual_scale) {
  attn_norm = register_module("attn_norm", RMSNorm(c.d_model, c.norm_eps, c.norm_gain));
  attn = register_module(
      "attn", CausalSelfAttention(c.d_model, c.n_head, c.seq_len, c.rope_base, c.qk_norm,
                                  c.norm_gain, c.norm_eps, c.rotary_tables == TableDtype::bf16));
  mlp_norm = register_module("mlp_norm", RMSNorm(c.d_model, c.norm_eps, c.norm_gain));
  mlp = register_module("mlp", MLP(c.d_model, c.mlpHidden(), c.mlp));
}

torch::Tensor BlockImpl::forward(const torch::Tensor& x, double norm_scale) {
  auto branch = [&](const torch::Tensor& out) {  // r x branch output, skipped when r = 1
    return residual_scale == 1.0 ? out : out * residual_scale;
  };
  if (norm_scale == 1.0) {
    auto h = x + branch(attn(attn_norm(x)));  // (B,T,C)
    return h + branch(mlp(mlp_norm(h)));      // (B,T,C)
  }
  auto h = x + branch(attn(attn_norm(x) * norm_scale));  // (B,T,C)
  return h + branch(mlp(mlp_norm(h) * norm_scale));      // (B,T,C)
}

}  // namespace deepladder::trainers
