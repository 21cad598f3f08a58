// Logit-lens KL kernels (see lens_kl.cuh; math in lens_kl_reference.h).
#include <mma.h>

#include <cmath>
#include <cstdint>

#include "kernels/cuda_common.cuh"
#include "kernels/lens_kl.cuh"

namespace deepladder::kernels {

namespace {

constexpr int kTokensPerTile = 64;  // BN
constexpr int kVocabPerTile = 64;   // BV
constexpr int kDepthPerStep = 32;   // BK: the d dimension is consumed in steps of this size
constexpr int kThreads = 256;       // 8 warps
constexpr int kScorePitch = kVocabPerTile + 4;
constexpr int kMaxSplits = 64;
constexpr int kTargetBlocks = 1024;

// Online log-sum-exp state of one token over a vocabulary range, plus c = sum p (log p - s).
struct LensState {
  float max_logit;
  float sum_exp;
  float p_log_ratio;
};

__device__ __forceinline__ LensState mergeStates(LensState x, LensState y) {
  const float m = fmaxf(x.max_logit, y.max_logit);
  LensState out{m, 0.0f, x.p_log_ratio + y.p_log_ratio};
  if (m != -INFINITY)
    out.sum_exp = x.sum_exp * expf(x.max_logit - m) + y.sum_exp * expf(y.max_logit - m);
  return out;
}

__device__ __forceinline__ LensState warpMergeStates(LensState s) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    LensState other;
    other.max_logit = __shfl_xor_sync(0xffffffffu, s.max_logit, offset);
    other.sum_exp = __shfl_xor_sync(0xffffffffu, s.sum_exp, offset);
    other.p_log_ratio = __shfl_xor_sync(0xffffffffu, s.p_log_ratio, offset);
    s = mergeStates(s, other);
  }
  return s;
}

__device__ __forceinline__ float loadOrZero(const float* p, bool ok) {
  return ok ? *p : 0.0f;
}
__device__ __forceinline__ __nv_bfloat16 loadOrZero(const __nv_bfloat16* p, bool ok) {
  return ok ? *p : __float2bfloat16_rn(0.0f);
}

// --- the 64 x 64 logit tile: scores[t][v] = X[t0 + t] . W[v0 + v] ---------------------------

// float32: each thread accumulates a 4 x 4 micro-tile with FMA.
__device__ void computeScoreTile(const float* __restrict__ x, const float* __restrict__ w,
                                 int64_t tokens, int64_t vocab, int64_t dim, int64_t t0, int64_t v0,
                                 float* scores) {
  __shared__ __align__(16) float xs[kDepthPerStep][kTokensPerTile + 4];  // (BK, BN)
  __shared__ __align__(16) float ws[kDepthPerStep][kVocabPerTile + 4];   // (BK, BV)
  const int tx = threadIdx.x % 16;                                       // vocab group
  const int ty = threadIdx.x / 16;                                       // token group
  float acc[4][4] = {};
  for (int64_t k0 = 0; k0 < dim; k0 += kDepthPerStep) {
    for (int idx = threadIdx.x; idx < kTokensPerTile * kDepthPerStep; idx += kThreads) {
      const int row = idx / kDepthPerStep;
      const int kk = idx % kDepthPerStep;
      const bool k_ok = k0 + kk < dim;
      xs[kk][row] = loadOrZero(x + (t0 + row) * dim + k0 + kk, k_ok && t0 + row < tokens);
      ws[kk][row] = loadOrZero(w + (v0 + row) * dim + k0 + kk, k_ok && v0 + row < vocab);
    }
    __syncthreads();
#pragma unroll 8
    for (int kk = 0; kk < kDepthPerStep; ++kk) {
      const float4 a = *reinterpret_cast<const float4*>(&xs[kk][ty * 4]);
      const float4 b = *reinterpret_cast<const float4*>(&ws[kk][tx * 4]);
      const float av[4] = {a.x, a.y, a.z, a.w};
      const float bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) scores[(ty * 4 + i) * kScorePitch + tx * 4 + j] = acc[i][j];
}

// bfloat16: WMMA 16 x 16 x 16 on tensor cores, float32 accumulators; each warp owns 1 x 2
// fragments of the 4 x 4 fragment grid.
__device__ void computeScoreTile(const __nv_bfloat16* __restrict__ x,
                                 const __nv_bfloat16* __restrict__ w, int64_t tokens, int64_t vocab,
                                 int64_t dim, int64_t t0, int64_t v0, float* scores) {
  using namespace nvcuda;
  constexpr int kPitch = kDepthPerStep + 8;  // bf16 elements; a multiple of 8 as WMMA needs
  __shared__ __align__(32) __nv_bfloat16 xs[kTokensPerTile * kPitch];  // (BN, BK) row-major
  __shared__ __align__(32) __nv_bfloat16 ws[kVocabPerTile * kPitch];   // (BV, BK) = B col-major
  const int warp = threadIdx.x / 32;
  const int frag_row = warp / 2;         // 0..3
  const int frag_col0 = (warp % 2) * 2;  // 0 or 2
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2];
  wmma::fill_fragment(acc[0], 0.0f);
  wmma::fill_fragment(acc[1], 0.0f);
  for (int64_t k0 = 0; k0 < dim; k0 += kDepthPerStep) {
    for (int idx = threadIdx.x; idx < kTokensPerTile * kDepthPerStep; idx += kThreads) {
      const int row = idx / kDepthPerStep;
      const int kk = idx % kDepthPerStep;
      const bool k_ok = k0 + kk < dim;
      xs[row * kPitch + kk] = loadOrZero(x + (t0 + row) * dim + k0 + kk, k_ok && t0 + row < tokens);
      ws[row * kPitch + kk] = loadOrZero(w + (v0 + row) * dim + k0 + kk, k_ok && v0 + row < vocab);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kDepthPerStep; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
      wmma::load_matrix_sync(a, xs + frag_row * 16 * kPitch + kk, kPitch);
#pragma unroll
      for (int f = 0; f < 2; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
        wmma::load_matrix_sync(b, ws + (frag_col0 + f) * 16 * kPitch + kk, kPitch);
        wmma::mma_sync(acc[f], a, b, acc[f]);
      }
    }
    __syncthreads();
  }
  for (int f = 0; f < 2; ++f)
    wmma::store_matrix_sync(scores + frag_row * 16 * kScorePitch + (frag_col0 + f) * 16, acc[f],
                            kScorePitch, wmma::mem_row_major);
}

// --- kernels --------------------------------------------------------------------------------

// grid (splits, token tiles). Writes partial[token * splits + split].
template <typename T, typename P>
static __global__ void __launch_bounds__(kThreads)
    lensKlPartialKernel(const T* __restrict__ x, const T* __restrict__ w,
                        const P* __restrict__ logp, float4* __restrict__ partial, int64_t tokens,
                        int64_t vocab, int64_t dim) {
  __shared__ __align__(32) float scores[kTokensPerTile * kScorePitch];  // (BN, BV + 4)
  __shared__ LensState running[kTokensPerTile];
  const int64_t t0 = static_cast<int64_t>(blockIdx.y) * kTokensPerTile;
  const int64_t vocab_tiles = (vocab + kVocabPerTile - 1) / kVocabPerTile;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (threadIdx.x < kTokensPerTile) running[threadIdx.x] = LensState{-INFINITY, 0.0f, 0.0f};

  for (int64_t tile = blockIdx.x; tile < vocab_tiles; tile += gridDim.x) {
    const int64_t v0 = tile * kVocabPerTile;
    computeScoreTile(x, w, tokens, vocab, dim, t0, v0, scores);
    __syncthreads();
    // Warp `warp` folds tokens warp*8 .. warp*8+7; each lane takes vocab lane and lane + 32.
    for (int t = warp * 8; t < warp * 8 + 8; ++t) {
      const int64_t token = t0 + t;
      if (token >= tokens) break;
      LensState s{-INFINITY, 0.0f, 0.0f};
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int v = lane + half * 32;
        if (v0 + v >= vocab) continue;
        const float logit = scores[t * kScorePitch + v];
        const float lp = toFloat(logp[token * vocab + v0 + v]);
        const float p = expf(lp);
        const LensState one{logit, 1.0f, p > 0.0f ? p * (lp - logit) : 0.0f};
        s = mergeStates(s, one);
      }
      s = warpMergeStates(s);
      if (lane == 0) running[t] = mergeStates(running[t], s);
    }
    __syncthreads();
  }
  if (threadIdx.x < kTokensPerTile && t0 + threadIdx.x < tokens) {
    const LensState s = running[threadIdx.x];
    partial[(t0 + threadIdx.x) * gridDim.x + blockIdx.x] =
        make_float4(s.max_logit, s.sum_exp, s.p_log_ratio, 0.0f);
  }
}

// One warp per token: merge the splits, KL = c + m + log(l).
static __global__ void lensKlMergeKernel(const float4* __restrict__ partial, float* __restrict__ kl,
                                         int64_t tokens, int splits) {
  const int64_t token = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (token >= tokens) return;  // whole warps leave together
  LensState s{-INFINITY, 0.0f, 0.0f};
  for (int i = lane; i < splits; i += 32) {
    const float4 p = partial[token * splits + i];
    s = mergeStates(s, LensState{p.x, p.y, p.z});
  }
  s = warpMergeStates(s);
  if (lane == 0) kl[token] = s.p_log_ratio + s.max_logit + logf(s.sum_exp);
}

// --- launchers ------------------------------------------------------------------------------

int splitsFor(int64_t tokens, int64_t vocab) {
  const int64_t token_tiles = (tokens + kTokensPerTile - 1) / kTokensPerTile;
  const int64_t vocab_tiles = (vocab + kVocabPerTile - 1) / kVocabPerTile;
  int64_t splits = (kTargetBlocks + token_tiles - 1) / (token_tiles > 0 ? token_tiles : 1);
  if (splits > vocab_tiles) splits = vocab_tiles;
  if (splits > kMaxSplits) splits = kMaxSplits;
  return static_cast<int>(splits < 1 ? 1 : splits);
}

template <typename T, typename P>
void launchLensKl(const T* x, const T* w, const P* logp, float* kl, float4* partial, int64_t tokens,
                  int64_t vocab, int64_t dim, cudaStream_t stream) {
  const int splits = splitsFor(tokens, vocab);
  const dim3 grid(static_cast<unsigned>(splits),
                  static_cast<unsigned>((tokens + kTokensPerTile - 1) / kTokensPerTile));
  lensKlPartialKernel<T, P><<<grid, kThreads, 0, stream>>>(x, w, logp, partial, tokens, vocab, dim);
  const int merge_threads = 256;  // 8 tokens per block
  const unsigned merge_blocks =
      static_cast<unsigned>((tokens * 32 + merge_threads - 1) / merge_threads);
  lensKlMergeKernel<<<merge_blocks, merge_threads, 0, stream>>>(partial, kl, tokens, splits);
}

}  // namespace

// --- entry points ---------------------------------------------------------------------------

size_t lensKlWorkspaceBytes(int64_t tokens, int64_t vocab) {
  return static_cast<size_t>(tokens) * static_cast<size_t>(splitsFor(tokens, vocab)) *
         sizeof(float4);
}

void lensKl(const Matrix& states, const Matrix& unembedding, const Matrix& final_logp, float* kl,
            void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  constexpr const char* kOp = "lensKl";
  const int64_t tokens = states.rows;
  const int64_t dim = states.cols;
  const int64_t vocab = unembedding.rows;
  requireMatrix(kOp, "states", states, states.dtype, tokens, dim);
  requireMatrix(kOp, "unembedding", unembedding, states.dtype, vocab, dim);
  const DType logp_dtype = final_logp.dtype == DType::kFloat32 ? DType::kFloat32 : states.dtype;
  requireMatrix(kOp, "final_logp", final_logp, logp_dtype, tokens, vocab);
  if (tokens == 0) return;
  if (vocab == 0 || dim == 0) throw std::invalid_argument("lensKl: empty vocabulary or width");
  if (kl == nullptr) throw std::invalid_argument("lensKl: kl is null");
  if (workspace_bytes < lensKlWorkspaceBytes(tokens, vocab) || workspace == nullptr ||
      reinterpret_cast<uintptr_t>(workspace) % 16 != 0)
    throw std::invalid_argument(
        "lensKl: workspace missing, misaligned or smaller than lensKlWorkspaceBytes()");
  if ((tokens + kTokensPerTile - 1) / kTokensPerTile > 65535)
    throw std::invalid_argument("lensKl: more than 4 million tokens in one call; split the batch");
  float4* partial = static_cast<float4*>(workspace);
  if (states.dtype == DType::kFloat32) {
    launchLensKl(
        static_cast<const float*>(states.data), static_cast<const float*>(unembedding.data),
        static_cast<const float*>(final_logp.data), kl, partial, tokens, vocab, dim, stream);
  } else {
    const auto* x = static_cast<const __nv_bfloat16*>(states.data);
    const auto* w = static_cast<const __nv_bfloat16*>(unembedding.data);
    if (final_logp.dtype == DType::kFloat32)
      launchLensKl(x, w, static_cast<const float*>(final_logp.data), kl, partial, tokens, vocab,
                   dim, stream);
    else
      launchLensKl(x, w, static_cast<const __nv_bfloat16*>(final_logp.data), kl, partial, tokens,
                   vocab, dim, stream);
  }
  checkLaunch(kOp);
}

}  // namespace deepladder::kernels
