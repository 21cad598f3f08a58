// smallGemm: the tile products of the fused CPU attention (causal_attention_cpu.cpp) when the
// head size is small (D <= 32). At such sizes a BLAS call's fixed cost (argument checks, kernel
// selection, packing) exceeds the arithmetic of a 64 x 64 x 16 product, so plain loops do the
// work: blocks of 4 rows x 16 (or 8) columns of C accumulated in registers by
// broadcast-multiply-add along contiguous rows of op(B) (AVX2 / AVX-512 clones, cpu_isa_clones.h).
// A causal band skips the exact zeros of the masked probabilities, about half the work of a
// diagonal tile.
#pragma once

#include <cstdint>

namespace deepladder::trainers {

// Row-major C (M,N) = alpha op(A) op(B) + beta C with op(A) (M,K), op(B) (K,N), as sgemmTile
// (cpu_gemm.h); beta = 0 overwrites C. `band` >= 0 declares op(A)'s zeros: without trans_a,
// row i of A is zero beyond column i + band; with trans_a, row i of op(A) is zero before column
// i - band (the causal tiles, band = first query - first key); band < 0: no zeros declared.
// Single-threaded.
void smallGemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
               const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
               int64_t ldc, int64_t band = -1);

}  // namespace deepladder::trainers
