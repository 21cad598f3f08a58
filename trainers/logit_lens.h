// Logit lens: decode the residual state after every block (entry 0 = embedding) with the
// model's own final norm and unembedding, q_l = softmax(Norm(h_l) W_U), p = q_L, and measure
// KL(p || q_l) per token. Memory stays at one block's logits: the tokens are taken in chunks of
// at most `chunk_rows` rows, and within a chunk the blocks one at a time (p's log-probs and one
// q_l's are the only (rows, V) tensors alive). On CUDA tensors with the fused kernels built it
// uses trainers/cuda's lensKl, which never forms q_l's logits at all.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "trainers/gpt.h"

namespace deepladder::trainers {

// Default chunk: about 16M logits (64 MiB in float32) per block.
int64_t defaultLensChunkRows(int64_t vocab_size);

// Adds, for every residual state l of one batch (each (B,T,C)), the sum over its B*T tokens of
// KL(p || q_l) in nats to kl_sum[l] (resized to residuals.size() when empty); returns B*T.
// Runs without autograd.
int64_t addLensKl(GPTImpl& model, const std::vector<torch::Tensor>& residuals,
                  std::vector<double>& kl_sum, int64_t chunk_rows = 0);

}  // namespace deepladder::trainers
