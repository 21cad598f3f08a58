// FLOP audit of a training step (see flop_audit.h).
#include "tests/bench/flop_audit.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/flop_model.h"

namespace deepladder::bench {

namespace {

// Nominal FLOPs per element of the elementwise ops (forward, backward). Not measured: these ops
// are a few percent of the step's FLOPs, and the audit is about the products.
constexpr double kNormFwd = 4, kNormBwd = 8;       // x^2, sum, scale, gain / its chain rule
constexpr double kRotaryFwd = 3, kRotaryBwd = 3;   // x cos + rot(x) sin
constexpr double kGeluFwd = 8, kGeluBwd = 12;      // tanh form
constexpr double kSwigluFwd = 5, kSwigluBwd = 10;  // silu(gate) * up
constexpr double kCrossEntropyFwd = 4, kCrossEntropyBwd = 3;  // max, exp, sum / softmax - 1
constexpr double kOptimizerPerParameter = 16;                 // clipping (norm, scale) + AdamW

constexpr int64_t kTile = 64;       // causal_attention_cpu.cpp's tile rows
constexpr int64_t kSmallHead = 32;  // heads up to this skip the masked zeros of diagonal tiles

// Scores the fused kernel's tile products touch per (sequence, head).
double fusedScores(int64_t T, int64_t D) {
  double scores = 0;
  for (int64_t r0 = 0; r0 < T; r0 += kTile) {
    const int64_t nq = std::min(kTile, T - r0);
    for (int64_t c0 = 0; c0 < r0 + nq; c0 += kTile) {
      const int64_t nk = std::min(kTile, T - c0);
      const bool diagonal = c0 + nk > r0;
      scores += diagonal && D <= kSmallHead ? nq * (nq + 1) / 2.0 : double(nq) * double(nk);
    }
  }
  return scores;
}

}  // namespace

std::vector<OpFlops> executedFlopsPerStep(const ModelConfig& m, int64_t batch, bool fused) {
  const double N = double(batch) * double(m.seq_len), d = double(m.d_model);
  const double L = double(executedBlocks(m, false)), h = double(m.mlpHidden());
  const double V = double(m.vocab_padded > 0 ? m.vocab_padded : m.vocab_size);
  const int64_t D = m.n_head > 0 ? m.d_model / m.n_head : m.d_model;
  const bool swiglu = m.mlp == MlpKind::swiglu;
  std::vector<OpFlops> ops;
  // linear: (K -> M) products per token.
  const double per_token_km = L * (4 * d * d + (swiglu ? 3 : 2) * d * h) + d * V;
  ops.push_back({"linear", 2 * N * per_token_km, 4 * N * per_token_km, true});
  // attention: per layer, per sequence and head, 2 D FLOPs per score per product.
  const double seq_heads = L * double(batch) * double(m.n_head);
  if (fused) {
    const double scores = fusedScores(m.seq_len, D);
    ops.push_back(
        {"attention", seq_heads * 2 * 2.0 * D * scores, seq_heads * 5 * 2.0 * D * scores, true});
  } else {
    const double scores = double(m.seq_len) * double(m.seq_len);
    ops.push_back(
        {"attention", seq_heads * 2 * 2.0 * D * scores, seq_heads * 4 * 2.0 * D * scores, true});
  }
  // Elementwise ops.
  const double norms = L * (2 + (m.qk_norm ? 2 : 0)) + 1 + (m.embed_norm ? 1 : 0);
  ops.push_back({"rms_norm", norms * N * d * kNormFwd, norms * N * d * kNormBwd, false});
  ops.push_back({"rotary", L * 2 * N * d * kRotaryFwd, L * 2 * N * d * kRotaryBwd, false});
  ops.push_back({"mlp_act", L * N * h * (swiglu ? kSwigluFwd : kGeluFwd),
                 L * N * h * (swiglu ? kSwigluBwd : kGeluBwd), false});
  ops.push_back({"cross_entropy", N * V * kCrossEntropyFwd, N * V * kCrossEntropyBwd, false});
  ops.push_back({"optimizer", 0, double(countParameters(m).total) * kOptimizerPerParameter, false});
  return ops;
}

double totalFlops(const std::vector<OpFlops>& ops) {
  double total = 0;
  for (const auto& op : ops) total += op.forward + op.backward;
  return total;
}

void printFlopAudit(const char* label, const std::vector<OpFlops>& ops, const OpBreakdown& b) {
  std::map<std::string, double> ms;  // category -> profiled ms per step (forward + backward)
  for (const auto& [name, us] : b.fwd_us) ms[name] += us / 1e3;
  for (const auto& [name, us] : b.bwd_us) ms[name] += us / 1e3;
  std::printf("audit %s %-14s %12s %12s %10s %10s\n", label, "op", "fwd_GFLOP", "bwd_GFLOP",
              "ms/step", "GFLOP/s");
  double gemm = 0, all = 0, gemm_ms = 0;
  for (const auto& op : ops) {
    const double flops = op.forward + op.backward;
    const double t = ms.count(op.op) ? ms[op.op] : 0.0;
    std::printf("audit %s %-14s %12.4f %12.4f %10.3f %10.2f%s\n", label, op.op.c_str(),
                op.forward / 1e9, op.backward / 1e9, t, t > 0 ? flops / 1e9 / (t / 1e3) : 0.0,
                op.is_gemm ? "  (products)" : "  (elementwise, nominal FLOPs)");
    all += flops;
    if (op.is_gemm) gemm += flops, gemm_ms += t;
  }
  double accounted = 0;
  for (const auto& [name, t] : ms) accounted += t;
  std::printf(
      "audit %s total executed %.4f GFLOP/step (products %.4f) in %.3f ms/step profiled "
      "(products %.3f ms, other scopes %.3f ms, unscoped %.3f ms)\n",
      label, all / 1e9, gemm / 1e9, b.step_us / 1e3, gemm_ms, accounted - gemm_ms,
      b.step_us / 1e3 - accounted);
}

}  // namespace deepladder::bench
