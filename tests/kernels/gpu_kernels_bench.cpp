// GPU speed of the fused CUDA ops against the unfused LibTorch ops they replace, measured in the
// same run (label bench;gpu). Prints one line per case: milliseconds per call and the speed-up.
// Exits 0 with a note when no CUDA device is present.
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <random>

#include "kernels/squaring_labels_reference.h"
#include "trainers/cuda/boundary_operator_function.h"
#include "trainers/cuda/lens_kl_function.h"
#include "trainers/cuda/squaring_labels_function.h"

namespace {

using deepladder::trainers::fused::boundaryOperator;
using deepladder::trainers::fused::lensKl;
using deepladder::trainers::fused::squaringLabels;

// Milliseconds per call of f (after warm-up), synchronising the device around the timed loop.
double millisecondsPerCall(const std::function<void()>& f, int iterations) {
  for (int i = 0; i < 3; ++i) f();
  torch::cuda::synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) f();
  torch::cuda::synchronize();
  const std::chrono::duration<double, std::milli> elapsed =
      std::chrono::steady_clock::now() - start;
  return elapsed.count() / iterations;
}

void report(const char* name, double fused_ms, double unfused_ms) {
  std::printf("%-52s fused %8.3f ms  unfused %8.3f ms  speed-up %5.2fx\n", name, fused_ms,
              unfused_ms, unfused_ms / fused_ms);
}

torch::Tensor unfusedBoundary(const torch::Tensor& h, const torch::Tensor& e, double alpha) {
  return h * torch::rsqrt(h.pow(2).mean(-1, true) + 1e-6) + alpha * e;
}

void benchBoundary(torch::ScalarType dtype, int64_t rows, int64_t dim) {
  const auto opts = torch::TensorOptions().device(torch::kCUDA).dtype(dtype);
  const auto h = torch::randn({rows, dim}, opts), e = torch::randn({rows, dim}, opts);
  const auto dy = torch::randn({rows, dim}, opts);
  char name[128];
  std::snprintf(name, sizeof name, "boundary forward %lldx%lld %s", (long long)rows, (long long)dim,
                c10::toString(dtype));
  {
    torch::NoGradGuard no_grad;
    report(name, millisecondsPerCall([&] { boundaryOperator(h, e, 1.0); }, 200),
           millisecondsPerCall([&] { unfusedBoundary(h, e, 1.0); }, 200));
  }
  std::snprintf(name, sizeof name, "boundary forward+backward %lldx%lld %s", (long long)rows,
                (long long)dim, c10::toString(dtype));
  const auto hg = h.clone().requires_grad_(true), eg = e.clone().requires_grad_(true);
  const auto step = [&](bool fused) {
    hg.mutable_grad() = torch::Tensor();
    eg.mutable_grad() = torch::Tensor();
    (fused ? boundaryOperator(hg, eg, 1.0) : unfusedBoundary(hg, eg, 1.0)).backward(dy);
  };
  report(name, millisecondsPerCall([&] { step(true); }, 100),
         millisecondsPerCall([&] { step(false); }, 100));
}

void benchLens(torch::ScalarType dtype, int64_t tokens, int64_t dim, int64_t vocab) {
  torch::NoGradGuard no_grad;
  const auto opts = torch::TensorOptions().device(torch::kCUDA).dtype(dtype);
  const auto x = torch::randn({tokens, dim}, opts);
  const auto w = torch::randn({vocab, dim}, opts) * (1.0 / std::sqrt(double(dim)));
  const auto logp =
      torch::log_softmax(torch::randn({tokens, vocab}, opts).to(torch::kFloat32), -1).to(dtype);
  const auto unfused = [&] {
    const auto logq = torch::log_softmax(x.matmul(w.t()).to(torch::kFloat32), -1);  // (N, V)
    const auto lp = logp.to(torch::kFloat32);
    return (lp.exp() * (lp - logq)).sum(-1);
  };
  const double err = ((lensKl(x, w, logp) - unfused()).norm() / unfused().norm()).item<double>();
  char name[128];
  std::snprintf(name, sizeof name, "lens KL N=%lld d=%lld V=%lld %s", (long long)tokens,
                (long long)dim, (long long)vocab, c10::toString(dtype));
  report(name, millisecondsPerCall([&] { lensKl(x, w, logp); }, 10),
         millisecondsPerCall(unfused, 10));
  std::printf(
      "%-52s unfused materializes %.0f MiB of float32 lens logits; fused keeps none "
      "(normalized difference %.2g)\n",
      "", tokens * vocab * 4.0 / (1 << 20), err);
}

void benchSquaring(int64_t count, int64_t squarings) {
  std::mt19937_64 rng(3);
  auto x = torch::empty({count}, torch::kInt64), n = torch::empty({count}, torch::kInt64);
  for (int64_t i = 0; i < count; ++i) {
    n[i] = static_cast<int64_t>((rng() >> 2) | 1);  // odd 62-bit moduli
    x[i] = static_cast<int64_t>(rng() >> 2);
  }
  const auto t = torch::full({count}, squarings, torch::kInt64);
  const auto xc = x.cuda(), nc = n.cuda(), tc = t.cuda();
  const double gpu_ms = millisecondsPerCall([&] { squaringLabels(xc, nc, tc); }, 5);
  const auto start = std::chrono::steady_clock::now();
  squaringLabels(x, n, t);  // CPU reference, one thread
  const double cpu_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  char name[128];
  std::snprintf(name, sizeof name, "squaring labels %lld x T=%lld (vs 1 CPU thread)",
                (long long)count, (long long)squarings);
  report(name, gpu_ms, cpu_ms);
}

}  // namespace

int main() {
  if (!torch::cuda::is_available()) {
    std::printf("gpu_kernels_bench: no CUDA device, nothing measured\n");
    return 0;
  }
  torch::manual_seed(1);
  for (const auto dtype : {torch::kFloat32, torch::kBFloat16}) benchBoundary(dtype, 8192, 1024);
  benchBoundary(torch::kBFloat16, 16384, 4096);
  benchLens(torch::kBFloat16, 4096, 1024, 50304);
  benchLens(torch::kFloat32, 4096, 1024, 50304);
  benchSquaring(1 << 16, 1 << 12);
  return 0;
}
