// Fused cross-entropy for the CPU (see cross_entropy_cpu.h).
#include "trainers/cross_entropy_cpu.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "trainers/cpu_isa_clones.h"
#include "trainers/fast_exp.h"
#include "trainers/row_grain.h"

namespace deepladder::trainers {

namespace {

constexpr int64_t kIgnore = -100;  // torch's default ignore_index

// log sum_c exp(scale z_c), c < V. The max and the sum vectorize (OpenMP SIMD reductions).
DEEPLADDER_ISA_CLONES
float rowLogSumExp(const float* __restrict z, int64_t V, float scale) {
  float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
  for (int64_t c = 0; c < V; ++c) m = std::max(m, scale * z[c]);
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t c = 0; c < V; ++c) sum += expFinite(scale * z[c] - m);
  return m + std::log(sum);
}

// d_c = g softmax_c = g exp(scale z_c - lse), c < V.
DEEPLADDER_ISA_CLONES
void rowSoftmaxTimes(const float* __restrict z, float* __restrict d, int64_t V, float scale,
                     float lse, float g) {
  for (int64_t c = 0; c < V; ++c) d[c] = g * expFinite(scale * z[c] - lse);
}

struct CrossEntropyFunction : torch::autograd::Function<CrossEntropyFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& z_in,
                               const torch::Tensor& targets_in, int64_t V, double scale_d) {
    auto z = z_in.contiguous();  // (R, Vp)
    auto targets = targets_in.contiguous();
    const int64_t R = z.size(0), Vp = z.size(1);
    const float scale = static_cast<float>(scale_d);
    auto lse = torch::empty({R}, z.options());  // (R)
    auto row_loss = torch::zeros({R}, z.options().dtype(torch::kFloat64));
    const float* Z = z.data_ptr<float>();
    const int64_t* T = targets.data_ptr<int64_t>();
    float* L = lse.data_ptr<float>();
    double* loss = row_loss.data_ptr<double>();
    // Every target is checked before any is read.
    int64_t counted = 0;
    for (int64_t r = 0; r < R; ++r) {
      TORCH_CHECK(T[r] == kIgnore || (T[r] >= 0 && T[r] < V), "cross-entropy: target ", T[r],
                  " out of range [0, ", V, ")");
      counted += T[r] != kIgnore;
    }
    at::parallel_for(0, R, rowGrain(V), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const float* zr = Z + r * Vp;
        L[r] = rowLogSumExp(zr, V, scale);
        if (T[r] != kIgnore) loss[r] = static_cast<double>(L[r]) - scale * zr[T[r]];
      }
    });
    ctx->save_for_backward({z, targets, lse});
    ctx->saved_data["V"] = V;
    ctx->saved_data["scale"] = scale_d;
    ctx->saved_data["counted"] = counted;
    // Mean over the counted rows (NaN when none, as torch's mean reduction gives).
    return (row_loss.sum() / static_cast<double>(counted)).to(torch::kFloat32);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &z = saved[0], &targets = saved[1], &lse = saved[2];
    const int64_t V = ctx->saved_data["V"].toInt();
    const float scale = static_cast<float>(ctx->saved_data["scale"].toDouble());
    const int64_t counted = ctx->saved_data["counted"].toInt();
    const int64_t R = z.size(0), Vp = z.size(1);
    const float g = grads[0].item<float>() * scale / static_cast<float>(counted);
    auto dz = torch::empty_like(z);  // (R, Vp)
    const float *Z = z.data_ptr<float>(), *L = lse.data_ptr<float>();
    const int64_t* T = targets.data_ptr<int64_t>();
    float* dZ = dz.data_ptr<float>();
    at::parallel_for(0, R, rowGrain(V), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const float* zr = Z + r * Vp;
        float* dr = dZ + r * Vp;
        std::fill(dr + V, dr + Vp, 0.0f);
        if (T[r] == kIgnore) {
          std::fill(dr, dr + V, 0.0f);
          continue;
        }
        rowSoftmaxTimes(zr, dr, V, scale, L[r], g);
        dr[T[r]] -= g;
      }
    });
    return {dz, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor crossEntropyCpu(const torch::Tensor& logits, const torch::Tensor& targets,
                              int64_t vocab_size, double output_scale) {
  TORCH_CHECK(
      logits.dim() == 2 && logits.device().is_cpu() && logits.scalar_type() == torch::kFloat32,
      "crossEntropyCpu: logits must be (R, V_padded) float32 on the CPU");
  TORCH_CHECK(targets.dim() == 1 && targets.size(0) == logits.size(0) &&
                  targets.scalar_type() == torch::kInt64,
              "crossEntropyCpu: targets must be (R) int64");
  TORCH_CHECK(vocab_size >= 1 && vocab_size <= logits.size(1),
              "crossEntropyCpu: vocab_size out of range");
  return CrossEntropyFunction::apply(logits, targets, vocab_size, output_scale);
}

}  // namespace deepladder::trainers
