// Fused RMSNorm for the CPU (see rms_norm_cpu.h).
#include "trainers/rms_norm_cpu.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace deepladder::trainers {

namespace {

// Rows per parallel_for chunk: about ATen's grain of elements, so small tensors stay serial.
int64_t rowGrain(int64_t row_length) {
  return std::max<int64_t>(1, at::internal::GRAIN_SIZE / std::max<int64_t>(1, row_length));
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
      for (int64_t r = begin; r < end; ++r) {
        const float* xr = X + r * C;
        float* yr = Y + r * C;
        double sum_sq = 0;
        for (int64_t c = 0; c < C; ++c) sum_sq += static_cast<double>(xr[c]) * xr[c];
        const float inv = static_cast<float>(1.0 / std::sqrt(sum_sq / C + eps));
        Rinv[r] = inv;
        if (G)
          for (int64_t c = 0; c < C; ++c) yr[c] = xr[c] * inv * G[c];
        else
          for (int64_t c = 0; c < C; ++c) yr[c] = xr[c] * inv;
      }
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
      std::vector<float> u(C);
      for (int64_t chunk = chunk_begin; chunk < chunk_end; ++chunk) {
        const int64_t r_end = std::min(rows, (chunk + 1) * chunk_rows);
        for (int64_t r = chunk * chunk_rows; r < r_end; ++r) {
          const float *xr = X + r * C, *dyr = dY + r * C;
          float* dxr = dX + r * C;
          const float inv = Rinv[r];
          double dot = 0;  // sum_c u_c x_c
          for (int64_t c = 0; c < C; ++c) {
            u[c] = G ? G[c] * dyr[c] : dyr[c];
            dot += static_cast<double>(u[c]) * xr[c];
          }
          const float k = static_cast<float>(dot / C) * inv * inv;
          for (int64_t c = 0; c < C; ++c) dxr[c] = inv * (u[c] - xr[c] * k);
          if (G) {
            double* pg = partial.data() + chunk * C;
            for (int64_t c = 0; c < C; ++c) pg[c] += static_cast<double>(dyr[c]) * xr[c] * inv;
          }
        }
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
