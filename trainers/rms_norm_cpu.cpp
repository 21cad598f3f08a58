// Fused RMSNorm for the CPU (see rms_norm_cpu.h).
#include "trainers/rms_norm_cpu.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "trainers/cpu_isa_clones.h"
#include "trainers/row_grain.h"

namespace deepladder::trainers {

namespace {

// y = x inv g (g may be null) for one row; returns inv = 1 / sqrt(mean(x^2) + eps).
DEEPLADDER_ISA_CLONES
float normalizeRow(const float* __restrict x, const float* __restrict g, float* __restrict y,
                   int64_t C, double eps) {
  double sum_sq = 0;
#pragma omp simd reduction(+ : sum_sq)
  for (int64_t c = 0; c < C; ++c) sum_sq += static_cast<double>(x[c]) * x[c];
  const float inv = static_cast<float>(1.0 / std::sqrt(sum_sq / C + eps));
  if (g)
    for (int64_t c = 0; c < C; ++c) y[c] = x[c] * inv * g[c];
  else
    for (int64_t c = 0; c < C; ++c) y[c] = x[c] * inv;
  return inv;
}

// dx for one row (u = g dy, or dy without gain), and the row's dg terms added into pg (if g).
DEEPLADDER_ISA_CLONES
void normalizeRowBackward(const float* __restrict x, const float* __restrict dy,
                          const float* __restrict g, float inv, float* __restrict dx,
                          double* __restrict pg, int64_t C) {
  double dot = 0;  // sum_c u_c x_c
#pragma omp simd reduction(+ : dot)
  for (int64_t c = 0; c < C; ++c) dot += static_cast<double>(g ? g[c] * dy[c] : dy[c]) * x[c];
  const float k = static_cast<float>(dot / C) * inv * inv;
  if (g) {
    for (int64_t c = 0; c < C; ++c) dx[c] = inv * (g[c] * dy[c] - x[c] * k);
    for (int64_t c = 0; c < C; ++c) pg[c] += static_cast<double>(dy[c]) * x[c] * inv;
  } else {
    for (int64_t c = 0; c < C; ++c) dx[c] = inv * (dy[c] - x[c] * k);
  }
}

struct RmsNormFunction : torch::autograd::Function<RmsNormFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x_in,
                               const torch::Tensor& gain, double eps) {
    auto x = x_in.contiguous();  // (..., C)
    const int64_t C = x.size(-1), rows = C == 0 ? 0 : x.numel() / C;
    auto y = torch::empty_like(x);                     // (..., C)
    auto inv_rms = torch::empty({rows}, x.options());  // (R)
    const bool has_gain = gain.numel() > 0;            // an empty tensor stands for "no gain"
    auto g = gain.contiguous();
    const float* X = x.data_ptr<float>();
    const float* G = has_gain ? g.data_ptr<float>() : nullptr;
    float *Y = y.data_ptr<float>(), *Rinv = inv_rms.data_ptr<float>();
    at::parallel_for(0, rows, rowGrain(C), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) Rinv[r] = normalizeRow(X + r * C, G, Y + r * C, C, eps);
    });
    ctx->save_for_backward({x, inv_rms, g});
    return y;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &x = saved[0], &inv_rms = saved[1], &g = saved[2];
    auto dy = grads[0].contiguous();  // (..., C)
    const int64_t C = x.size(-1), rows = C == 0 ? 0 : x.numel() / C;
    const bool has_gain = g.numel() > 0;
    auto dx = torch::empty_like(x);
    // dg: one partial sum per chunk, added up after (no shared accumulator across threads).
    const int64_t chunk_rows = rowGrain(C);
    const int64_t chunks = std::max<int64_t>(1, (rows + chunk_rows - 1) / chunk_rows);
    std::vector<double> partial(has_gain ? chunks * C : 0, 0.0);
    const float *X = x.data_ptr<float>(), *Rinv = inv_rms.data_ptr<float>();
    const float* G = has_gain ? g.data_ptr<float>() : nullptr;
    const float* dY = dy.data_ptr<float>();
    float* dX = dx.data_ptr<float>();
    at::parallel_for(0, chunks, 1, [&](int64_t chunk_begin, int64_t chunk_end) {
      for (int64_t chunk = chunk_begin; chunk < chunk_end; ++chunk) {
        const int64_t r_end = std::min(rows, (chunk + 1) * chunk_rows);
        double* pg = G ? partial.data() + chunk * C : nullptr;
        for (int64_t r = chunk * chunk_rows; r < r_end; ++r)
          normalizeRowBackward(X + r * C, dY + r * C, G, Rinv[r], dX + r * C, pg, C);
      }
    });
    torch::Tensor dgain;
    if (has_gain) {
      dgain = torch::zeros({C}, x.options());
      float* dG = dgain.data_ptr<float>();
      for (int64_t c = 0; c < C; ++c) {
        double sum = 0;
        for (int64_t chunk = 0; chunk < chunks; ++chunk) sum += partial[chunk * C + c];
        dG[c] = static_cast<float>(sum);
      }
    }
    return {dx, dgain, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor rmsNormCpu(const torch::Tensor& x, const torch::Tensor& gain, double eps) {
  TORCH_CHECK(x.device().is_cpu() && x.scalar_type() == torch::kFloat32,
              "rmsNormCpu: float32 CPU tensors only");
  TORCH_CHECK(!gain.defined() || (gain.dim() == 1 && gain.size(0) == x.size(-1) &&
                                  gain.scalar_type() == torch::kFloat32),
              "rmsNormCpu: gain must be float32 (C) with C = x.size(-1)");
  // autograd::Function takes no undefined tensors: an empty one marks the gain-free norm.
  return RmsNormFunction::apply(x, gain.defined() ? gain : torch::empty({0}, x.options()), eps);
}

}  // namespace deepladder::trainers
