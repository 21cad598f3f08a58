// Logit-lens KL on the GPU: per token KL(p || softmax(X W^T)) for one block's normed states X
// (N, d), the unembedding W (V, d) and the final log-probs (N, V), without materializing the
// N x V lens logits. The math and the CPU reference are in lens_kl_reference.h.
//
// How: a thread block owns 64 tokens and walks a strided subset of 64-wide vocabulary tiles. For
// each tile it computes the 64 x 64 logits in shared memory (bf16 inputs on tensor cores via
// WMMA, float32 inputs with FMA), then folds them into a running (max, sum exp, sum p(log p - s))
// per token. The per-block partial states (N x splits, a few per token) go to a workspace and a
// second kernel merges them into KL. Memory besides the inputs: O(N * splits), splits <= 64.
// Host-side header: includable from plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/matrix.h"

namespace deepladder::kernels {

// Bytes of device workspace lensKl needs for these sizes (16-byte aligned).
size_t lensKlWorkspaceBytes(int64_t tokens, int64_t vocab);

// states (N, d) and unembedding (V, d): one dtype (float32 or bfloat16), contiguous, device.
// final_logp (N, V): float32, or bfloat16 when the states are bfloat16. kl: (N) float32 device
// output. workspace: at least lensKlWorkspaceBytes(N, V) bytes of device memory.
void lensKl(const Matrix& states, const Matrix& unembedding, const Matrix& final_logp, float* kl,
            void* workspace, size_t workspace_bytes, cudaStream_t stream);

}  // namespace deepladder::kernels
