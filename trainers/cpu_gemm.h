// A faster y = x W^T for float32 on the CPU. Debian's LibTorch sends torch::mm to the system BLAS
// (ATLAS here: one thread, no threading), while the oneDNN library the same LibTorch ships has a
// JIT sgemm that runs several times faster and uses the intra-op threads (fused_ops_bench). When
// CMake finds libdnnl (DEEPLADDER_HAVE_DNNL_GEMM) this linear calls dnnl_sgemm for the forward and
// both backward products inside a custom autograd function; otherwise, for other devices or
// dtypes, under CPU autocast (train.precision = "bf16": autocast's own bfloat16 linear, which
// oneDNN runs on AVX512-BF16), or when disabled at run time, it is exactly torch::linear.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

// x (..., K) float32, weight (N, K) -> (..., N), no bias. Differentiable in both arguments.
torch::Tensor fastLinear(const torch::Tensor& x, const torch::Tensor& weight);

// Whether the oneDNN path is compiled in; it is used when compiled in unless switched off.
bool fastCpuGemmCompiled();
void setFastCpuGemmEnabled(bool enabled);  // for benchmarks and tests comparing the two paths

// A (..., M, K) times B (..., K, N), the same leading (batch) dims, both bfloat16 or both float32,
// on the CPU: each product accumulated in float32 by oneDNN's sgemm and rounded once to the
// inputs' dtype, what a GPU's bfloat16 GEMM does. LibTorch 1.13 has no BLAS for bfloat16 on a CPU
// without AVX512-BF16 and runs such products in its scalar fallback loop: Polar Express (muon.cpp)
// spent 42% of a quick-ladder run there. Anything else (other devices, dtypes or shapes, the
// path switched off, oneDNN not compiled in) is exactly torch::matmul. Not differentiable.
torch::Tensor fastMatmulNoGrad(const torch::Tensor& a, const torch::Tensor& b);

// Row-major C (M,N) = alpha op(A) op(B) + beta C on raw float pointers with leading dimensions
// (op(A) is (M,K), op(B) is (K,N)): oneDNN's sgemm when compiled in, else a plain loop. For the
// tiles of the fused CPU kernels; single-threaded inside at::parallel_for.
void sgemmTile(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
               const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
               int64_t ldc);

}  // namespace deepladder::trainers
