// Decoder-only GPT: token embedding, n_layer pre-norm blocks (RMSNorm, causal rotary attention,
// GELU or SwiGLU MLP), final RMSNorm, unembedding tied to the embedding or separate. No biases,
// no dropout, no learned positions (rotary only). Its parameter count equals
// deepladder::countParameters(config).total exactly.
//
// Built to be extended: `embed`, `blocks` and `decode` are separate steps so that later models
// (prelude/core/coda, looped cores, growth) can reorder them, and `forward` can hand back the
// residual stream after every block for a logit lens (decode each state with `decode`).
#pragma once

#include <torch/torch.h>

#include <vector>

#include "core/run_config.h"
#include "trainers/block.h"
#include "trainers/rms_norm.h"

namespace deepladder::trainers {

struct GPTImpl : torch::nn::Module {
  explicit GPTImpl(const ModelConfig& config);

  // idx (B,T) int64 -> logits (B,T,V). When `residuals` is given it receives T tensors of
  // (B,T,C): entry 0 is the embedding output, entry l the residual stream after block l.
  torch::Tensor forward(const torch::Tensor& idx, std::vector<torch::Tensor>* residuals = nullptr);

  torch::Tensor embed(const torch::Tensor& idx);      // (B,T) -> (B,T,C)
  torch::Tensor decode(const torch::Tensor& hidden);  // (B,T,C) -> final norm -> (B,T,V)

  // Mean next-token cross-entropy of idx (B,T) against targets (B,T).
  torch::Tensor loss(const torch::Tensor& idx, const torch::Tensor& targets);

  // GPT-2 style initialisation from the current torch RNG: N(0, 0.02) for embeddings and
  // matrices, N(0, 0.02 / sqrt(2 n_layer)) for the projections that write into the residual.
  void initialiseWeights();

  int64_t parameterCount() const;  // distinct trainable parameters (tied weights once)

  ModelConfig config;
  torch::nn::Embedding token_embedding{nullptr};  // (V, C)
  torch::nn::ModuleList blocks{nullptr};
  RMSNorm final_norm{nullptr};
  torch::nn::Linear unembedding{nullptr};  // (C) -> (V); null when tied to token_embedding
};
TORCH_MODULE(GPT);

}  // namespace deepladder::trainers
