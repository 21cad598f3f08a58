// Causal self-attention (see attention.h).
#include "trainers/attention.h"

#include <torch/version.h>

#include "trainers/causal_attention_cpu.h"
#include "trainers/cpu_gemm.h"
#include "trainers/fused_cpu_ops.h"

namespace deepladder::trainers {

CausalSelfAttentionImpl::CausalSelfAttentionImpl(int64_t d_model, int64_t n_head_,
                                                 int64_t max_seq_len, double rope_base,
                                                 bool qk_norm, bool norm_gain, double norm_eps,
                                                 bool bf16_rotary_tables)
    : n_head(n_head_), head_dim(d_model / n_head_) {
  TORCH_CHECK(d_model % n_head == 0, "d_model ", d_model, " not divisible by n_head ", n_head);
  qkv = register_module(
      "qkv", torch::nn::Linear(torch::nn::LinearOptions(d_model, 3 * d_model).bias(false)));
  proj = register_module("proj",
                         torch::nn::Linear(torch::nn::LinearOptions(d_model, d_model).bias(false)));
  rotary = register_module("rotary", Rotary(head_dim, max_seq_len, rope_base, bf16_rotary_tables));
  if (qk_norm) {
    q_norm = register_module("q_norm", RMSNorm(head_dim, norm_eps, norm_gain));
    k_norm = register_module("k_norm", RMSNorm(head_dim, norm_eps, norm_gain));
  }
#if TORCH_VERSION_MAJOR < 2
  // LibTorch 1.x has no fused causal attention: an additive mask, built once per layer.
  causal_bias = register_buffer("causal_bias", causalBias(max_seq_len));
#endif
}

torch::Tensor CausalSelfAttentionImpl::forward(const torch::Tensor& x) {
  const int64_t B = x.size(0), T = x.size(1), C = x.size(2);
  // (B,T,3C) -> (B,T,3,H,D) -> (3,B,H,T,D)
  auto qkv_heads =
      fastLinear(x, qkv->weight).view({B, T, 3, n_head, head_dim}).permute({2, 0, 3, 1, 4});
  auto qk = rotary(qkv_heads.narrow(0, 0, 2));  // (2,B,H,T,D): q and k rotated in one go
  auto q = qk[0];                               // (B,H,T,D)
  auto k = qk[1];                               // (B,H,T,D)
  if (q_norm) {                                 // QK-norm over the head dimension, after rotary
    q = q_norm(q);
    k = k_norm(k);
  }
  auto v = qkv_heads[2];  // (B,H,T,D)
  // The fused fp32 CPU kernel wherever it applies, on LibTorch 2.x too: on LibTorch 2.6's CPU it
  // beats scaled_dot_product_attention's forward + backward (fused_ops_bench, attention_sdpa_*) and
  // speeds up a training step (trainer_bench).
  torch::Tensor y;  // (B,H,T,D)
  if (useFusedCpuPath(q)) {
    y = causalAttentionCpu(q, k, v);
  } else {
#if TORCH_VERSION_MAJOR >= 2
    // CUDA (flash / memory-efficient kernels), and the CPU under bf16 autocast.
    y = at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, /*dropout_p=*/0.0,
                                         /*is_causal=*/true);
#else
    y = causalAttentionComposition(q, k, v, causal_bias);  // LibTorch 1.x: no fused attention
#endif
  }
  return fastLinear(y.transpose(1, 2).reshape({B, T, C}), proj->weight);  // (B,T,C)
}

}  // namespace deepladder::trainers
