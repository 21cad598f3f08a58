// Bidirectional / causal attention with a key padding mask (see squaring_attention.h).
#include "trainers/squaring/squaring_attention.h"

#include <cmath>

#include "trainers/cpu_gemm.h"

namespace deepladder::trainers::squaring {

namespace {
// Large but finite: a row whose keys are all masked (never produced by our layouts) stays finite.
constexpr double kMaskedKey = -1e9;
}  // namespace

SquaringAttentionImpl::SquaringAttentionImpl(int64_t d_model, int64_t n_head_, bool causal_)
    : n_head(n_head_), head_dim(d_model / n_head_), causal(causal_) {
  TORCH_CHECK(d_model % n_head == 0, "d_model ", d_model, " not divisible by n_head ", n_head);
  qkv = register_module(
      "qkv", torch::nn::Linear(torch::nn::LinearOptions(d_model, 3 * d_model).bias(false)));
  proj = register_module("proj",
                         torch::nn::Linear(torch::nn::LinearOptions(d_model, d_model).bias(false)));
}

torch::Tensor SquaringAttentionImpl::forward(const torch::Tensor& x,
                                             const torch::Tensor& key_bias) {
  const int64_t B = x.size(0), T = x.size(1), C = x.size(2);
  // (B,T,3C) -> (B,T,3,H,D) -> (3,B,H,T,D) -> three (B*H,T,D)
  auto heads =
      fastLinear(x, qkv->weight).view({B, T, 3, n_head, head_dim}).permute({2, 0, 3, 1, 4});
  auto q = heads[0].reshape({B * n_head, T, head_dim});
  auto k = heads[1].reshape({B * n_head, T, head_dim});
  auto v = heads[2].reshape({B * n_head, T, head_dim});
  const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
  auto scores = torch::bmm(q, k.transpose(1, 2)).mul_(scale).view({B, n_head, T, T});  // (B,H,T,T)
  if (key_bias.defined()) scores = scores + key_bias.unsqueeze(1);  // (B,1,1,T) over keys
  if (causal) {
    auto future = torch::ones({T, T}, x.options().dtype(torch::kBool)).triu(/*diagonal=*/1);
    scores = scores.masked_fill(future, kMaskedKey);
  }
  auto att = torch::softmax(scores, -1).view({B * n_head, T, T});
  auto y = torch::bmm(att, v).view({B, n_head, T, head_dim});             // (B,H,T,D)
  return fastLinear(y.transpose(1, 2).reshape({B, T, C}), proj->weight);  // (B,T,C)
}

torch::Tensor keyPaddingBias(const torch::Tensor& input_mask) {
  // (B,T) {0,1} -> (B,1,T): 0 where 1, kMaskedKey where 0
  return (1.0 - input_mask.to(torch::kFloat32)).mul_(kMaskedKey).unsqueeze(1);
}

}  // namespace deepladder::trainers::squaring
