// Causal scaled-dot-product attention, softmax(q k^T / sqrt(D) + causal mask) v, two ways:
// - causalAttentionCpu: the fused CPU float32 kernel. Tiled over query and key blocks of 64 rows
//   with an online softmax (running max and sum per query row), so neither the (T,T) scores nor
//   a mask tensor is materialized; blocks above the diagonal are skipped (half the FLOPs). Saves
//   q, k, v, the output and the per-row log-sum-exp; the backward recomputes each score tile
//   (flash-attention style). Parallel over batch x heads (at::parallel_for); tile products on
//   smallGemm (small_gemm_cpu.h: plain loops that skip the masked zeros) for head sizes up to
//   32, on sgemmTile (cpu_gemm.h) above; the per-row softmax loops on AVX2/AVX-512 clones.
//   First derivatives only.
// - causalAttentionComposition: the LibTorch composition it replaces (baddbmm with an additive
//   -inf mask, softmax, bmm): the path for CUDA tensors and other dtypes, and the reference.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

// q, k, v (B,H,T,D) float32 on the CPU -> (B,H,T,D).
torch::Tensor causalAttentionCpu(const torch::Tensor& q, const torch::Tensor& k,
                                 const torch::Tensor& v);

// q, k, v (B,H,T,D); causal_bias (>= T, >= T): 0 on and below the diagonal, -inf above.
torch::Tensor causalAttentionComposition(const torch::Tensor& q, const torch::Tensor& k,
                                         const torch::Tensor& v, const torch::Tensor& causal_bias);

// The additive causal mask of causalAttentionComposition, (T,T).
torch::Tensor causalBias(int64_t T);

}  // namespace deepladder::trainers
