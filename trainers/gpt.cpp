// GPT model (see gpt.h).
#include "trainers/gpt.h"

#include <cmath>

#include "trainers/cpu_gemm.h"

namespace deepladder::trainers {

GPTImpl::GPTImpl(const ModelConfig& c) : config(c) {
  token_embedding =
      register_module("token_embedding", torch::nn::Embedding(c.vocab_size, c.d_model));
  blocks = register_module("blocks", torch::nn::ModuleList());
  for (int64_t layer = 0; layer < c.n_layer; ++layer) blocks->push_back(Block(c));
  final_norm = register_module("final_norm", RMSNorm(c.d_model));
  if (!c.tie_embeddings)
    unembedding = register_module(
        "unembedding",
        torch::nn::Linear(torch::nn::LinearOptions(c.d_model, c.vocab_size).bias(false)));
  initialiseWeights();
}

void GPTImpl::initialiseWeights() {
  torch::NoGradGuard no_grad;
  const double std_dev = 0.02;
  const double residual_std = std_dev / std::sqrt(2.0 * static_cast<double>(config.n_layer));
  token_embedding->weight.normal_(0.0, std_dev);
  for (const auto& module : *blocks) {
    auto block = module->as<BlockImpl>();
    block->attn->qkv->weight.normal_(0.0, std_dev);
    block->attn->proj->weight.normal_(0.0, residual_std);
    block->mlp->up->weight.normal_(0.0, std_dev);
    block->mlp->down->weight.normal_(0.0, residual_std);
  }
  if (unembedding) unembedding->weight.normal_(0.0, std_dev);
}

torch::Tensor GPTImpl::embed(const torch::Tensor& idx) {
  return token_embedding(idx);
}

torch::Tensor GPTImpl::decode(const torch::Tensor& hidden) {
  auto h = final_norm(hidden);                                                        // (B,T,C)
  return fastLinear(h, unembedding ? unembedding->weight : token_embedding->weight);  // (B,T,V)
}

torch::Tensor GPTImpl::forward(const torch::Tensor& idx, std::vector<torch::Tensor>* residuals) {
  TORCH_CHECK(idx.dim() == 2, "GPT expects (B,T) token ids");
  TORCH_CHECK(idx.size(1) <= config.seq_len, "sequence of ", idx.size(1),
              " tokens is longer than seq_len ", config.seq_len);
  auto x = embed(idx);  // (B,T,C)
  if (residuals) residuals->push_back(x);
  for (const auto& module : *blocks) {
    x = module->as<BlockImpl>()->forward(x);  // (B,T,C)
    if (residuals) residuals->push_back(x);
  }
  return decode(x);  // (B,T,V)
}

torch::Tensor GPTImpl::loss(const torch::Tensor& idx, const torch::Tensor& targets) {
  auto logits = forward(idx);  // (B,T,V)
  return torch::nn::functional::cross_entropy(logits.view({-1, logits.size(-1)}),
                                              targets.reshape({-1}));
}

int64_t GPTImpl::parameterCount() const {
  int64_t total = 0;
  for (const auto& p : parameters()) total += p.numel();  // parameters() lists shared ones once
  return total;
}

}  // namespace deepladder::trainers
