// Fused exact GELU for the CPU (see gelu_cpu.h).
#include "trainers/gelu_cpu.h"

#include <ATen/Parallel.h>

#include <cmath>

#include "trainers/cpu_isa_clones.h"
#include "trainers/fast_exp.h"

namespace deepladder::trainers {

namespace {

constexpr float kSqrtHalf = 0.70710678118654752f;    // 1 / sqrt 2
constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1 / sqrt(2 pi)

// Phi(x) = (1 + erf(x / sqrt 2)) / 2 and, in `gauss`, exp(-x^2 / 2), branch-free (both forms
// are computed, one is selected). |z| < 1: erf's Taylor series to z^21 (error < 2e-9, so only
// rounding); |z| >= 1: erfc(|z|) in the Abramowitz-Stegun form.
inline float phi(float x, float& gauss) {
  const float z = x * kSqrtHalf;
  const float z2 = z * z;
  float e = 1.4807192816e-08f;  // 2 / sqrt(pi) (-1)^n / (n! (2n + 1)), n = 10 .. 0
  e = e * z2 - 1.6365844691e-07f;
  e = e * z2 + 1.6462114366e-06f;
  e = e * z2 - 1.4925650358e-05f;
  e = e * z2 + 1.2055332982e-04f;
  e = e * z2 - 8.5483270235e-04f;
  e = e * z2 + 5.2239776254e-03f;
  e = e * z2 - 2.6866170645e-02f;
  e = e * z2 + 1.1283791671e-01f;
  e = e * z2 - 3.7612638903e-01f;
  e = e * z2 + 1.1283791671e+00f;
  const float erf_small = e * z;
  const float a = std::fabs(z);
  const float t = 1.0f / (1.0f + 0.3275911f * a);
  float p = 1.061405429f;
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  gauss = expFinite(-z2);
  const float erfc_a = p * t * gauss;  // erfc(|z|)
  const float tail = z < 0.0f ? erfc_a : 2.0f - erfc_a;
  return 0.5f * (a < 1.0f ? 1.0f + erf_small : tail);
}

DEEPLADDER_ISA_CLONES
void geluForward(const float* __restrict x, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float gauss;
    y[i] = x[i] * phi(x[i], gauss);
  }
}

DEEPLADDER_ISA_CLONES
void geluBackward(const float* __restrict x, const float* __restrict dy, float* __restrict dx,
                  int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float gauss;
    const float cdf = phi(x[i], gauss);
    dx[i] = dy[i] * (cdf + x[i] * gauss * kInvSqrt2Pi);
  }
}

struct GeluFunction : torch::autograd::Function<GeluFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x_in) {
    auto x = x_in.contiguous();
    auto y = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    float* out = y.data_ptr<float>();
    at::parallel_for(0, x.numel(), at::internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) {
      geluForward(in + begin, out + begin, end - begin);
    });
    ctx->save_for_backward({x});
    return y;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto x = ctx->get_saved_variables()[0];
    auto dy = grads[0].contiguous();
    auto dx = torch::empty_like(x);
    const float *in = x.data_ptr<float>(), *g = dy.data_ptr<float>();
    float* out = dx.data_ptr<float>();
    at::parallel_for(0, x.numel(), at::internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) {
      geluBackward(in + begin, g + begin, out + begin, end - begin);
    });
    return {dx};
  }
};

}  // namespace

torch::Tensor geluCpu(const torch::Tensor& x) {
  TORCH_CHECK(x.device().is_cpu() && x.scalar_type() == torch::kFloat32,
              "geluCpu: float32 CPU tensors only");
  return GeluFunction::apply(x);
}

}  // namespace deepladder::trainers
