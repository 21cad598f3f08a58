// Plain-loop tile products for small head sizes (see small_gemm_cpu.h).
#include "trainers/small_gemm_cpu.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "trainers/cpu_isa_clones.h"

namespace deepladder::trainers {

namespace {

constexpr int64_t kRows = 4;      // rows of C per block: independent accumulator chains
constexpr int64_t kCols = 16;     // columns of C per block: one AVX-512 or two AVX2 registers
constexpr int64_t kHalfCols = 8;  // the narrow block (one AVX2 register): heads of 8 and 24
// kCols (kHalfCols) floats as one value (GCC/Clang vector extension; each clone lowers it to its
// registers).
typedef float Cols __attribute__((vector_size(kCols * sizeof(float))));
typedef float HalfCols __attribute__((vector_size(kHalfCols * sizeof(float))));

// One kRows x (columns of V) block of C = alpha op(A) Bk + beta C over k in [k_begin, k_end),
// accumulated in registers. Inlined into each ISA clone of gemmRows, so it is compiled for each.
template <typename V>
__attribute__((always_inline)) inline void rowBlock(const float* a0, int64_t sa_row, int64_t sa_k,
                                                    const float* Bk, int64_t ldk, int64_t k_begin,
                                                    int64_t k_end, float alpha, float beta,
                                                    float* c0, int64_t ldc) {
  V acc[kRows] = {};
  for (int64_t k = k_begin; k < k_end; ++k) {
    V b;
    std::memcpy(&b, Bk + k * ldk, sizeof b);
    for (int64_t r = 0; r < kRows; ++r) acc[r] += a0[r * sa_row + k * sa_k] * b;
  }
  for (int64_t r = 0; r < kRows; ++r) {
    V c;
    std::memcpy(&c, c0 + r * ldc, sizeof c);
    c = beta == 0.0f ? alpha * acc[r] : alpha * acc[r] + beta * c;
    std::memcpy(c0 + r * ldc, &c, sizeof c);
  }
}

// C (M,N) = alpha op(A) Bk + beta C, Bk (K,N) row-major with leading dimension ldk. Columns go
// in blocks of 16, then 8, then one by one; a head of 8 (the quick ladder's) thus takes the
// narrow block in the products whose N is the head size (P V and the dQ, dK, dV products).
DEEPLADDER_ISA_CLONES
void gemmRows(bool trans_a, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
              int64_t lda, const float* Bk, int64_t ldk, float beta, float* C, int64_t ldc,
              int64_t band) {
  const int64_t sa_row = trans_a ? 1 : lda, sa_k = trans_a ? lda : 1;  // strides of op(A)
  for (int64_t i0 = 0; i0 < M; i0 += kRows) {
    const int64_t rows = std::min(kRows, M - i0);
    int64_t k_begin = 0, k_end = K;  // the k where some of the block's rows may be nonzero
    if (band >= 0 && !trans_a) k_end = std::min(K, i0 + rows - 1 + band + 1);
    if (band >= 0 && trans_a) k_begin = std::max<int64_t>(0, i0 - band);
    const float* a0 = A + i0 * sa_row;
    int64_t j0 = 0;
    if (rows == kRows) {
      for (; j0 + kCols <= N; j0 += kCols)
        rowBlock<Cols>(a0, sa_row, sa_k, Bk + j0, ldk, k_begin, k_end, alpha, beta,
                       C + i0 * ldc + j0, ldc);
      for (; j0 + kHalfCols <= N; j0 += kHalfCols)
        rowBlock<HalfCols>(a0, sa_row, sa_k, Bk + j0, ldk, k_begin, k_end, alpha, beta,
                           C + i0 * ldc + j0, ldc);
    }
    float* c0 = C + i0 * ldc;
    for (int64_t r = 0; r < rows; ++r)  // edge rows and columns: scalar
      for (int64_t l = j0; l < N; ++l) {
        float sum = 0;
        for (int64_t k = k_begin; k < k_end; ++k)
          sum += a0[r * sa_row + k * sa_k] * Bk[k * ldk + l];
        float& c = c0[r * ldc + l];
        c = beta == 0.0f ? alpha * sum : alpha * sum + beta * c;
      }
  }
}

}  // namespace

void smallGemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
               const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
               int64_t ldc, int64_t band) {
  if (!trans_b) {
    gemmRows(trans_a, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, band);
    return;
  }
  // op(B) = B^T: B is (N,K); lay it out as (K,N) so the inner loop runs along contiguous rows.
  thread_local std::vector<float> scratch;
  scratch.resize(static_cast<size_t>(K * N));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) scratch[k * N + n] = B[n * ldb + k];
  gemmRows(trans_a, M, N, K, alpha, A, lda, scratch.data(), N, beta, C, ldc, band);
}

}  // namespace deepladder::trainers
