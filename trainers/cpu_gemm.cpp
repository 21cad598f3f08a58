// Linear through oneDNN's sgemm on the CPU (see cpu_gemm.h).
#include "trainers/cpu_gemm.h"

#include <ATen/record_function.h>

#include <atomic>

#include "trainers/precision.h"

#ifdef DEEPLADDER_HAVE_DNNL_GEMM
// oneDNN's C API (dnnl.h, stable since v1.0): row-major C = alpha op(A) op(B) + beta C. Declared
// here because Debian ships the library with LibTorch but not its headers.
extern "C" int dnnl_sgemm(char transa, char transb, int64_t M, int64_t N, int64_t K, float alpha,
                          const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                          float* C, int64_t ldc);
#endif

namespace deepladder::trainers {

namespace {

std::atomic<bool> fast_gemm_enabled{true};

#ifdef DEEPLADDER_HAVE_DNNL_GEMM

// C (M,N) = op(A) op(B), all row-major contiguous float32.
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const torch::Tensor& A,
          const torch::Tensor& B, torch::Tensor& C) {
  const int64_t lda = trans_a ? M : K;
  const int64_t ldb = trans_b ? K : N;
  const int status =
      dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', M, N, K, 1.0f, A.data_ptr<float>(), lda,
                 B.data_ptr<float>(), ldb, 0.0f, C.data_ptr<float>(), N);
  TORCH_CHECK(status == 0, "dnnl_sgemm failed with status ", status);
}

// y (R,N) = x (R,K) W^T, W (N,K)
torch::Tensor forwardProduct(const torch::Tensor& x2d, const torch::Tensor& w) {
  auto y = torch::empty({x2d.size(0), w.size(0)}, x2d.options());
  gemm(false, true, x2d.size(0), w.size(0), x2d.size(1), x2d, w, y);
  return y;
}

struct DnnlLinear : torch::autograd::Function<DnnlLinear> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& weight) {
    auto x2d = x.reshape({-1, x.size(-1)}).contiguous();  // (R,K)
    auto w = weight.contiguous();                         // (N,K)
    ctx->save_for_backward({x2d, w});
    auto sizes = x.sizes().vec();
    sizes.back() = w.size(0);
    return forwardProduct(x2d, w).view(sizes);  // (..., N)
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& x2d = saved[0];  // (R,K)
    const auto& w = saved[1];    // (N,K)
    const int64_t R = x2d.size(0), K = x2d.size(1), N = w.size(0);
    auto gy = grads[0].reshape({R, N}).contiguous();  // (R,N)
    torch::Tensor gx, gw;
    if (ctx->needs_input_grad(0)) {
      gx = torch::empty({R, K}, gy.options());
      gemm(false, false, R, K, N, gy, w, gx);  // (R,N) (N,K)
      auto sizes = grads[0].sizes().vec();
      sizes.back() = K;
      gx = gx.view(sizes);
    }
    if (ctx->needs_input_grad(1)) {
      gw = torch::empty({N, K}, gy.options());
      gemm(true, false, N, K, R, gy, x2d, gw);  // (R,N)^T (R,K)
    }
    return {gx, gw};
  }
};

#endif

}  // namespace

bool fastCpuGemmCompiled() {
#ifdef DEEPLADDER_HAVE_DNNL_GEMM
  return true;
#else
  return false;
#endif
}

void setFastCpuGemmEnabled(bool on) {
  fast_gemm_enabled.store(on);
}

void sgemmTile(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
               const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
               int64_t ldc) {
#ifdef DEEPLADDER_HAVE_DNNL_GEMM
  const int status = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', M, N, K, alpha, A, lda, B,
                                ldb, beta, C, ldc);
  TORCH_CHECK(status == 0, "dnnl_sgemm failed with status ", status);
#else
  for (int64_t i = 0; i < M; ++i) {
    float* c = C + i * ldc;
    for (int64_t j = 0; j < N; ++j) c[j] = beta == 0.0f ? 0.0f : beta * c[j];
    for (int64_t k = 0; k < K; ++k) {
      const float a = alpha * (trans_a ? A[k * lda + i] : A[i * lda + k]);
      if (trans_b)
        for (int64_t j = 0; j < N; ++j) c[j] += a * B[j * ldb + k];
      else
        for (int64_t j = 0; j < N; ++j) c[j] += a * B[k * ldb + j];
    }
  }
#endif
}

torch::Tensor fastLinear(const torch::Tensor& x, const torch::Tensor& weight) {
  RECORD_FUNCTION("deepladder::linear", std::vector<c10::IValue>());
#ifdef DEEPLADDER_HAVE_DNNL_GEMM
  if (fast_gemm_enabled.load(std::memory_order_relaxed) && x.device().is_cpu() &&
      x.scalar_type() == torch::kFloat32 && weight.scalar_type() == torch::kFloat32 &&
      x.numel() > 0 && !autocastEnabled(c10::DeviceType::CPU)) {
    if (!torch::GradMode::is_enabled() || (!x.requires_grad() && !weight.requires_grad())) {
      auto sizes = x.sizes().vec();
      sizes.back() = weight.size(0);
      return forwardProduct(x.reshape({-1, x.size(-1)}).contiguous(), weight.contiguous())
          .view(sizes);
    }
    return DnnlLinear::apply(x, weight);
  }
#endif
  return torch::linear(x, weight);
}

torch::Tensor fastMatmulNoGrad(const torch::Tensor& a, const torch::Tensor& b) {
#ifdef DEEPLADDER_HAVE_DNNL_GEMM
  const auto dtype = a.scalar_type();
  const bool reduced_or_float = dtype == torch::kBFloat16 || dtype == torch::kFloat32;
  const bool same_batch = a.dim() >= 2 && a.dim() == b.dim() &&
                          a.sizes().slice(0, a.dim() - 2) == b.sizes().slice(0, b.dim() - 2) &&
                          a.size(-1) == b.size(-2);
  if (fast_gemm_enabled.load(std::memory_order_relaxed) && a.device().is_cpu() &&
      b.device().is_cpu() && reduced_or_float && b.scalar_type() == dtype && same_batch &&
      a.numel() > 0 && b.numel() > 0) {
    const int64_t M = a.size(-2), K = a.size(-1), N = b.size(-1);
    // Exact: float32 holds every bfloat16 value. One copy converts a bfloat16 input and lays a
    // transposed view out contiguously; a float32 input is copied only when it is not contiguous
    // (`to` returns it as it is, so contiguous() does that); the reshapes are views.
    const auto contiguous_float = [](const torch::Tensor& t) {
      return t
          .to(torch::kFloat32, /*non_blocking=*/false, /*copy=*/false,
              torch::MemoryFormat::Contiguous)
          .contiguous();
    };
    const torch::Tensor af = contiguous_float(a).reshape({-1, M, K});  // (n,M,K)
    const torch::Tensor bf = contiguous_float(b).reshape({-1, K, N});  // (n,K,N)
    auto sizes = a.sizes().vec();
    sizes.back() = N;
    torch::Tensor out = torch::empty(sizes, af.options());  // (..., M, N)
    const float* pa = af.data_ptr<float>();
    const float* pb = bf.data_ptr<float>();
    float* pc = out.data_ptr<float>();
    for (int64_t i = 0; i < af.size(0); ++i)
      sgemmTile(false, false, M, N, K, 1.0f, pa + i * M * K, K, pb + i * K * N, N, 0.0f,
                pc + i * M * N, N);
    return out.to(dtype);
  }
#endif
  return a.matmul(b);
}

}  // namespace deepladder::trainers
