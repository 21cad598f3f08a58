// Fused causal attention for the CPU and its LibTorch reference (see causal_attention_cpu.h).
#include "trainers/causal_attention_cpu.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "trainers/cpu_gemm.h"
#include "trainers/cpu_isa_clones.h"
#include "trainers/fast_exp.h"
#include "trainers/small_gemm_cpu.h"

namespace deepladder::trainers {

namespace {

constexpr int64_t kTile = 64;  // query and key rows per tile (equal: each tile row has a key)
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr int64_t kSmallHead = 32;  // head sizes up to this take smallGemm, larger ones sgemmTile

// A tile product (sgemmTile's contract): plain loops for small heads (with the causal band, see
// small_gemm_cpu.h), oneDNN's sgemm otherwise.
void tileGemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
              const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
              int64_t ldc, int64_t D, int64_t band = -1) {
  if (D <= kSmallHead)
    smallGemm(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, band);
  else
    sgemmTile(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
// Forward, one score tile S (nq,nk) (row stride kTile) whose query a sees keys c <= a + offset
// (offset = r0 - c0): S becomes the unnormalized probabilities exp(s - m_new) (0 for masked
// keys), the running max m and sum l are updated and the running output rows Oi (nq,D) rescaled.
DEEPLADDER_ISA_CLONES
void onlineSoftmaxTile(float* S, int64_t nq, int64_t nk, int64_t offset, float* m, float* l,
                       float* Oi, int64_t D) {
  for (int64_t a = 0; a < nq; ++a) {
    float* s = S + a * kTile;
    const int64_t valid = std::min(nk, a + offset + 1);
    float block_max = kNegInf;
#pragma omp simd reduction(max : block_max)
    for (int64_t c = 0; c < valid; ++c) block_max = std::max(block_max, s[c]);
    const float m_new = std::max(m[a], block_max);
    const float correction = std::exp(m[a] - m_new);  // 0 on the first block
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int64_t c = 0; c < valid; ++c) {
      s[c] = expFinite(s[c] - m_new);
      sum += s[c];
    }
    for (int64_t c = valid; c < nk; ++c) s[c] = 0.0f;
    l[a] = l[a] * correction + sum;
    m[a] = m_new;
    if (correction != 1.0f)
      for (int64_t d = 0; d < D; ++d) Oi[a * D + d] *= correction;
  }
}

// Backward, one tile: P (nq,nk) = exp(S - lse_a), 0 for masked keys (as onlineSoftmaxTile).
DEEPLADDER_ISA_CLONES
void probabilityTile(float* P, int64_t nq, int64_t nk, int64_t offset, const float* lse) {
  for (int64_t a = 0; a < nq; ++a) {
    float* p = P + a * kTile;
    const int64_t valid = std::min(nk, a + offset + 1);
    const float shift = lse[a];
    for (int64_t c = 0; c < valid; ++c) p[c] = expFinite(p[c] - shift);
    for (int64_t c = valid; c < nk; ++c) p[c] = 0.0f;
  }
}

// Backward, one tile: dS = P (dP - delta_a) scale, in place of dP.
DEEPLADDER_ISA_CLONES
void scoreGradTile(const float* P, float* dS, int64_t nq, int64_t nk, const float* delta,
                   float scale) {
  for (int64_t a = 0; a < nq; ++a) {
    const float* __restrict p = P + a * kTile;
    float* __restrict ds = dS + a * kTile;
    const float da = delta[a];
    for (int64_t c = 0; c < nk; ++c) ds[c] = p[c] * (ds[c] - da) * scale;
  }
}

// --- forward: one (batch, head) matrix, all query blocks ---
// Q, K, V, O (T,D); lse (T): log sum_j exp(s_ij) per query row, for the backward.
void forwardHead(const float* Q, const float* K, const float* V, float* O, float* lse, int64_t T,
                 int64_t D, float scale) {
  std::vector<float> S(kTile * kTile), m(kTile), l(kTile);
  for (int64_t r0 = 0; r0 < T; r0 += kTile) {
    const int64_t nq = std::min(kTile, T - r0);
    float* Oi = O + r0 * D;  // (nq,D): the running, unnormalized output
    std::fill(Oi, Oi + nq * D, 0.0f);
    std::fill(m.begin(), m.end(), kNegInf);
    std::fill(l.begin(), l.end(), 0.0f);
    for (int64_t c0 = 0; c0 < r0 + nq; c0 += kTile) {  // key blocks up to the diagonal
      const int64_t nk = std::min(kTile, T - c0);
      // S (nq,nk) = scale Q_i K_j^T
      tileGemm(false, true, nq, nk, D, scale, Q + r0 * D, D, K + c0 * D, D, 0.0f, S.data(), kTile,
               D);
      onlineSoftmaxTile(S.data(), nq, nk, r0 - c0, m.data(), l.data(), Oi, D);
      // O_i += P V_j
      tileGemm(false, false, nq, D, nk, 1.0f, S.data(), kTile, V + c0 * D, D, 1.0f, Oi, D, D,
               r0 - c0);
    }
    for (int64_t a = 0; a < nq; ++a) {
      const float inv = 1.0f / l[a];
      for (int64_t d = 0; d < D; ++d) Oi[a * D + d] *= inv;
      lse[r0 + a] = m[a] + std::log(l[a]);
    }
  }
}

// --- backward: one (batch, head) matrix ---
// dQ, dK, dV (T,D) are written (not accumulated into); delta (T) is scratch.
void backwardHead(const float* Q, const float* K, const float* V, const float* O, const float* dO,
                  const float* lse, float* dQ, float* dK, float* dV, float* delta, int64_t T,
                  int64_t D, float scale) {
  std::vector<float> P(kTile * kTile), dS(kTile * kTile);
  std::fill(dQ, dQ + T * D, 0.0f);
  std::fill(dK, dK + T * D, 0.0f);
  std::fill(dV, dV + T * D, 0.0f);
  for (int64_t r = 0; r < T; ++r) {  // delta_r = sum_d dO_rd O_rd
    float sum = 0;
    for (int64_t d = 0; d < D; ++d) sum += dO[r * D + d] * O[r * D + d];
    delta[r] = sum;
  }
  for (int64_t c0 = 0; c0 < T; c0 += kTile) {
    const int64_t nk = std::min(kTile, T - c0);
    for (int64_t r0 = c0; r0 < T; r0 += kTile) {  // query blocks on and below the diagonal
      const int64_t nq = std::min(kTile, T - r0);
      // P (nq,nk) = exp(scale Q_i K_j^T - lse_i), 0 above the diagonal
      tileGemm(false, true, nq, nk, D, scale, Q + r0 * D, D, K + c0 * D, D, 0.0f, P.data(), kTile,
               D);
      probabilityTile(P.data(), nq, nk, r0 - c0, lse + r0);
      // dV_j += P^T dO_i
      tileGemm(true, false, nk, D, nq, 1.0f, P.data(), kTile, dO + r0 * D, D, 1.0f, dV + c0 * D, D,
               D, r0 - c0);
      // dP (nq,nk) = dO_i V_j^T, then dS = P (dP - delta) scale
      tileGemm(false, true, nq, nk, D, 1.0f, dO + r0 * D, D, V + c0 * D, D, 0.0f, dS.data(), kTile,
               D);
      scoreGradTile(P.data(), dS.data(), nq, nk, delta + r0, scale);
      // dQ_i += dS K_j, dK_j += dS^T Q_i
      tileGemm(false, false, nq, D, nk, 1.0f, dS.data(), kTile, K + c0 * D, D, 1.0f, dQ + r0 * D, D,
               D, r0 - c0);
      tileGemm(true, false, nk, D, nq, 1.0f, dS.data(), kTile, Q + r0 * D, D, 1.0f, dK + c0 * D, D,
               D, r0 - c0);
    }
  }
}

struct CausalAttentionFunction : torch::autograd::Function<CausalAttentionFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& q_in,
                               const torch::Tensor& k_in, const torch::Tensor& v_in) {
    auto q = q_in.contiguous(), k = k_in.contiguous(), v = v_in.contiguous();  // (B,H,T,D)
    const int64_t BH = q.size(0) * q.size(1), T = q.size(2), D = q.size(3);
    auto out = torch::empty_like(q);                                  // (B,H,T,D)
    auto lse = torch::empty({q.size(0), q.size(1), T}, q.options());  // (B,H,T)
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    const float *Q = q.data_ptr<float>(), *K = k.data_ptr<float>(), *V = v.data_ptr<float>();
    float *O = out.data_ptr<float>(), *L = lse.data_ptr<float>();
    at::parallel_for(0, BH, 1, [&](int64_t begin, int64_t end) {
      for (int64_t h = begin; h < end; ++h)
        forwardHead(Q + h * T * D, K + h * T * D, V + h * T * D, O + h * T * D, L + h * T, T, D,
                    scale);
    });
    ctx->save_for_backward({q, k, v, out, lse});
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &q = saved[0], &k = saved[1], &v = saved[2], &out = saved[3], &lse = saved[4];
    auto grad_out = grads[0].contiguous();  // (B,H,T,D)
    const int64_t BH = q.size(0) * q.size(1), T = q.size(2), D = q.size(3);
    auto dq = torch::empty_like(q), dk = torch::empty_like(k), dv = torch::empty_like(v);
    auto delta = torch::empty({BH, T}, q.options());
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    const float *Q = q.data_ptr<float>(), *K = k.data_ptr<float>(), *V = v.data_ptr<float>();
    const float *O = out.data_ptr<float>(), *dO = grad_out.data_ptr<float>();
    const float* L = lse.data_ptr<float>();
    float *dQ = dq.data_ptr<float>(), *dK = dk.data_ptr<float>(), *dV = dv.data_ptr<float>();
    float* Delta = delta.data_ptr<float>();
    at::parallel_for(0, BH, 1, [&](int64_t begin, int64_t end) {
      for (int64_t h = begin; h < end; ++h) {
        const int64_t o = h * T * D;
        backwardHead(Q + o, K + o, V + o, O + o, dO + o, L + h * T, dQ + o, dK + o, dV + o,
                     Delta + h * T, T, D, scale);
      }
    });
    return {dq, dk, dv};
  }
};

}  // namespace

torch::Tensor causalAttentionCpu(const torch::Tensor& q, const torch::Tensor& k,
                                 const torch::Tensor& v) {
  RECORD_FUNCTION("deepladder::attention", std::vector<c10::IValue>());
  TORCH_CHECK(q.dim() == 4 && q.sizes() == k.sizes() && q.sizes() == v.sizes(),
              "causalAttentionCpu: q, k, v must be (B,H,T,D) of one shape");
  TORCH_CHECK(q.device().is_cpu() && q.scalar_type() == torch::kFloat32 &&
                  k.scalar_type() == torch::kFloat32 && v.scalar_type() == torch::kFloat32,
              "causalAttentionCpu: float32 CPU tensors only");
  return CausalAttentionFunction::apply(q, k, v);
}

torch::Tensor causalAttentionComposition(const torch::Tensor& q, const torch::Tensor& k,
                                         const torch::Tensor& v, const torch::Tensor& causal_bias) {
  RECORD_FUNCTION("deepladder::attention", std::vector<c10::IValue>());
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), D = q.size(3);
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  // scores = q k^T / sqrt(D) + mask, in one baddbmm over (B*H) matrices.
  auto bias = causal_bias.narrow(0, 0, T).narrow(1, 0, T);  // (T,T)
  auto scores = torch::baddbmm(bias.expand({B * H, T, T}), q.reshape({B * H, T, D}),
                               k.reshape({B * H, T, D}).transpose(1, 2),
                               /*beta=*/1.0, /*alpha=*/scale);  // (B*H,T,T)
  auto att = torch::softmax(scores, -1);                        // (B*H,T,T)
  return torch::bmm(att, v.reshape({B * H, T, D})).view({B, H, T, D});
}

torch::Tensor causalBias(int64_t T) {
  return torch::full({T, T}, -std::numeric_limits<float>::infinity()).triu(/*diagonal=*/1);
}

}  // namespace deepladder::trainers
