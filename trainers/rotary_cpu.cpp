// Fused rotary embedding for the CPU (see rotary_cpu.h).
#include "trainers/rotary_cpu.h"

#include <ATen/Parallel.h>

#include <algorithm>

#include "trainers/cpu_isa_clones.h"
#include "trainers/row_grain.h"

namespace deepladder::trainers {

namespace {

// out (R,D) for rows of position r mod T: out_i = in_i C_i + in_{i+h} S_i, h = D/2 (rotate-half).
// `transpose` applies the adjoint: out_j = in_j C_j + in_{j+h} S_{j+h}.
DEEPLADDER_ISA_CLONES
void rotateRange(const float* __restrict in, float* __restrict out, const float* C, const float* S,
                 int64_t begin, int64_t end, int64_t T, int64_t D, bool transpose) {
  const int64_t h = D / 2;
  for (int64_t r = begin; r < end; ++r) {
    const float *x = in + r * D, *c = C + (r % T) * D, *s = S + (r % T) * D;
    float* y = out + r * D;
    if (!transpose) {
      for (int64_t i = 0; i < h; ++i) y[i] = x[i] * c[i] + x[i + h] * s[i];
      for (int64_t i = h; i < D; ++i) y[i] = x[i] * c[i] + x[i - h] * s[i];
    } else {
      for (int64_t j = 0; j < h; ++j) y[j] = x[j] * c[j] + x[j + h] * s[j + h];
      for (int64_t j = h; j < D; ++j) y[j] = x[j] * c[j] + x[j - h] * s[j - h];
    }
  }
}

void rotateRows(const float* in, float* out, const float* C, const float* S, int64_t rows,
                int64_t T, int64_t D, bool transpose) {
  at::parallel_for(0, rows, rowGrain(D), [&](int64_t begin, int64_t end) {
    rotateRange(in, out, C, S, begin, end, T, D, transpose);
  });
}

struct RotaryFunction : torch::autograd::Function<RotaryFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x_in,
                               const torch::Tensor& cos, const torch::Tensor& sin) {
    auto x = x_in.contiguous();  // (..., T, D)
    const int64_t T = x.size(-2), D = x.size(-1);
    auto c = cos.narrow(0, 0, T).contiguous(), s = sin.narrow(0, 0, T).contiguous();  // (T,D)
    auto out = torch::empty_like(x);
    rotateRows(x.data_ptr<float>(), out.data_ptr<float>(), c.data_ptr<float>(), s.data_ptr<float>(),
               x.numel() / D, T, D, /*transpose=*/false);
    ctx->save_for_backward({c, s});
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &c = saved[0], &s = saved[1];  // (T,D)
    auto dy = grads[0].contiguous();
    const int64_t T = c.size(0), D = c.size(1);
    auto dx = torch::empty_like(dy);
    rotateRows(dy.data_ptr<float>(), dx.data_ptr<float>(), c.data_ptr<float>(), s.data_ptr<float>(),
               dy.numel() / D, T, D, /*transpose=*/true);
    return {dx, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor rotaryCpu(const torch::Tensor& x, const torch::Tensor& cos,
                        const torch::Tensor& sin) {
  TORCH_CHECK(x.device().is_cpu() && x.scalar_type() == torch::kFloat32 &&
                  cos.scalar_type() == torch::kFloat32 && sin.scalar_type() == torch::kFloat32,
              "rotaryCpu: float32 CPU tensors only");
  TORCH_CHECK(x.dim() >= 2 && x.size(-1) % 2 == 0 && cos.size(1) == x.size(-1) &&
                  cos.size(0) >= x.size(-2) && sin.sizes() == cos.sizes(),
              "rotaryCpu: x (..., T, D) with D even, tables (>= T, D)");
  return RotaryFunction::apply(x, cos, sin);
}

}  // namespace deepladder::trainers
