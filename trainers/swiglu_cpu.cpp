// Fused SwiGLU for the CPU (see swiglu_cpu.h).
#include "trainers/swiglu_cpu.h"

#include <ATen/Parallel.h>

#include <algorithm>

#include "trainers/fast_exp.h"
#include "trainers/row_grain.h"

namespace deepladder::trainers {

namespace {

inline float sigmoid(float a) {
  return 1.0f / (1.0f + expFinite(-a));
}

struct SwigluFunction : torch::autograd::Function<SwigluFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& h_in) {
    auto h = h_in.contiguous();  // (..., 2H)
    const int64_t H = h.size(-1) / 2, rows = H == 0 ? 0 : h.numel() / (2 * H);
    auto sizes = h.sizes().vec();
    sizes.back() = H;
    auto y = torch::empty(sizes, h.options());  // (..., H)
    const float* in = h.data_ptr<float>();
    float* out = y.data_ptr<float>();
    at::parallel_for(0, rows, rowGrain(H), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const float *a = in + r * 2 * H, *b = a + H;
        float* yr = out + r * H;
        for (int64_t i = 0; i < H; ++i) yr[i] = a[i] * sigmoid(a[i]) * b[i];
      }
    });
    ctx->save_for_backward({h});
    return y;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto h = ctx->get_saved_variables()[0];  // (..., 2H)
    auto dy = grads[0].contiguous();               // (..., H)
    const int64_t H = h.size(-1) / 2, rows = H == 0 ? 0 : h.numel() / (2 * H);
    auto dh = torch::empty_like(h);
    const float *in = h.data_ptr<float>(), *g = dy.data_ptr<float>();
    float* out = dh.data_ptr<float>();
    at::parallel_for(0, rows, rowGrain(H), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const float *a = in + r * 2 * H, *b = a + H, *dyr = g + r * H;
        float *da = out + r * 2 * H, *db = da + H;
        for (int64_t i = 0; i < H; ++i) {
          const float s = sigmoid(a[i]);
          da[i] = dyr[i] * b[i] * s * (1.0f + a[i] * (1.0f - s));
          db[i] = dyr[i] * a[i] * s;
        }
      }
    });
    return {dh};
  }
};

}  // namespace

torch::Tensor swigluCpu(const torch::Tensor& h) {
  TORCH_CHECK(h.device().is_cpu() && h.scalar_type() == torch::kFloat32,
              "swigluCpu: float32 CPU tensors only");
  TORCH_CHECK(h.dim() >= 1 && h.size(-1) % 2 == 0, "swigluCpu: the last dimension must be even");
  return SwigluFunction::apply(h);
}

}  // namespace deepladder::trainers
