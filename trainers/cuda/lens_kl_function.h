// Logit-lens KL without the full lens logits: per token KL(p || softmax(X W^T)) for one block's
// normed states X, the unembedding W and the final log-probs (math: kernels/lens_kl_reference.h).
// Fused CUDA kernel on a GPU (float32, or bfloat16 states with bfloat16/float32 log-probs), the
// CPU reference otherwise. A diagnostic: runs without autograd.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers::fused {

// states (..., d) after the final norm; unembedding (V, d); final_logp (..., V) with the same
// leading shape. Returns (...) float32 KL in nats.
torch::Tensor lensKl(const torch::Tensor& states, const torch::Tensor& unembedding,
                     const torch::Tensor& final_logp);

}  // namespace deepladder::trainers::fused
