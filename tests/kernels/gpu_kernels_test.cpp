// GPU equivalence (label gpu): each CUDA op against its CPU reference by normalized error
// ||gpu - ref|| / ||ref||: under 1e-5 for float32, 1e-2 for bfloat16 (the reference sees the
// same bf16-rounded inputs in float32); squaring labels must match exactly. Skipped, saying so,
// when no CUDA device is present.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "trainers/cuda/boundary_operator_function.h"
#include "trainers/cuda/lens_kl_function.h"
#include "trainers/cuda/squaring_labels_function.h"

namespace deepladder::trainers::fused {
namespace {

double normalizedError(const torch::Tensor& a, const torch::Tensor& b) {
  const auto bd = b.to(torch::kCPU, torch::kFloat64);
  return ((a.to(torch::kCPU, torch::kFloat64) - bd).norm() / bd.norm().clamp_min(1e-30))
      .item<double>();
}

class GpuKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: GPU kernel tests skipped";
    torch::manual_seed(7);
  }
};

void checkBoundaryOperator(int64_t rows, int64_t dim, torch::ScalarType dtype, double tolerance) {
  const auto cuda = torch::TensorOptions().device(torch::kCUDA).dtype(dtype);
  auto h = (torch::randn({rows, dim}) * 2).to(cuda).requires_grad_(true);
  auto e = torch::randn({rows, dim}).to(cuda).requires_grad_(true);
  const auto dy = torch::randn({rows, dim}).to(cuda);
  auto y = boundaryOperator(h, e, /*alpha=*/0.7);
  y.backward(dy);
  // Reference: the CPU path of the same function on the same (rounded) values in float32.
  auto hc = h.detach().to(torch::kCPU, torch::kFloat32).requires_grad_(true);
  auto ec = e.detach().to(torch::kCPU, torch::kFloat32).requires_grad_(true);
  auto yc = boundaryOperator(hc, ec, 0.7);
  yc.backward(dy.to(torch::kCPU, torch::kFloat32));
  const std::string what =
      std::to_string(rows) + "x" + std::to_string(dim) + " " + std::string(c10::toString(dtype));
  const double ey = normalizedError(y.detach(), yc.detach());
  const double eh = normalizedError(h.grad(), hc.grad());
  const double ee = normalizedError(e.grad(), ec.grad());
  std::printf("boundary operator %s: normalized error y %.3g dh %.3g de %.3g\n", what.c_str(), ey,
              eh, ee);
  EXPECT_LT(ey, tolerance) << what;
  EXPECT_LT(eh, tolerance) << what;
  EXPECT_LT(ee, tolerance) << what;
}

TEST_F(GpuKernels, BoundaryOperatorMatchesReferenceFloat32) {
  checkBoundaryOperator(4096, 1024, torch::kFloat32, 1e-5);  // 16-byte packs
  checkBoundaryOperator(333, 1001, torch::kFloat32, 1e-5);   // scalar path, odd width
  checkBoundaryOperator(5, 3, torch::kFloat32, 1e-5);
}

TEST_F(GpuKernels, BoundaryOperatorMatchesReferenceBFloat16) {
  checkBoundaryOperator(4096, 1024, torch::kBFloat16, 1e-2);
  checkBoundaryOperator(333, 1001, torch::kBFloat16, 1e-2);
}

TEST_F(GpuKernels, BoundaryOperatorMatchesUnfusedLibTorchOnTheGpu) {
  const auto opts = torch::TensorOptions().device(torch::kCUDA);
  const auto h = torch::randn({256, 768}, opts), e = torch::randn({256, 768}, opts);
  const auto unfused = h * torch::rsqrt(h.pow(2).mean(-1, true) + 1e-6) + 1.5 * e;
  EXPECT_LT(normalizedError(boundaryOperator(h, e, 1.5), unfused), 1e-5);
}

void checkLensKl(int64_t tokens, int64_t dim, int64_t vocab, torch::ScalarType dtype,
                 torch::ScalarType logp_dtype, double tolerance) {
  const auto cuda = torch::TensorOptions().device(torch::kCUDA);
  const auto x = torch::randn({tokens, dim}, cuda).to(dtype);
  const auto w = (torch::randn({vocab, dim}, cuda) * (1.5 / std::sqrt(double(dim)))).to(dtype);
  const auto logp = torch::log_softmax(torch::randn({tokens, vocab}, cuda) * 2, -1).to(logp_dtype);
  const auto kl = lensKl(x, w, logp);
  const auto kl_ref = lensKl(x.cpu(), w.cpu(), logp.cpu());  // CPU reference on the same values
  const double err = normalizedError(kl, kl_ref);
  std::printf("lens KL %lldx%lld V=%lld %s/%s: normalized error %.3g (mean KL %.3f)\n",
              (long long)tokens, (long long)dim, (long long)vocab, c10::toString(dtype),
              c10::toString(logp_dtype), err, kl_ref.mean().item<double>());
  EXPECT_LT(err, tolerance);
}

TEST_F(GpuKernels, LensKlMatchesReferenceFloat32) {
  checkLensKl(300, 256, 5000, torch::kFloat32, torch::kFloat32, 1e-5);  // ragged tiles
  checkLensKl(64, 64, 64, torch::kFloat32, torch::kFloat32, 1e-5);      // one tile
  checkLensKl(7, 33, 129, torch::kFloat32, torch::kFloat32, 1e-5);      // width not a step
}

TEST_F(GpuKernels, LensKlMatchesReferenceBFloat16) {
  checkLensKl(300, 256, 5000, torch::kBFloat16, torch::kBFloat16, 1e-2);
  checkLensKl(300, 256, 5000, torch::kBFloat16, torch::kFloat32, 1e-2);
  checkLensKl(7, 40, 129, torch::kBFloat16, torch::kFloat32, 1e-2);
}

TEST_F(GpuKernels, LensKlOfTheFinalDistributionIsZero) {
  const auto cuda = torch::TensorOptions().device(torch::kCUDA);
  const auto x = torch::randn({128, 64}, cuda), w = torch::randn({1000, 64}, cuda) * 0.2;
  const auto logp = torch::log_softmax(x.matmul(w.t()), -1);
  EXPECT_LT(lensKl(x, w, logp).abs().max().item<double>(), 1e-4);
}

TEST_F(GpuKernels, SquaringLabelsMatchReferenceExactly) {
  std::mt19937_64 rng(8);
  const int64_t count = 20000;
  auto x = torch::empty({count}, torch::kInt64), n = torch::empty({count}, torch::kInt64),
       t = torch::empty({count}, torch::kInt64);
  for (int64_t i = 0; i < count; ++i) {
    const int bits = 2 + static_cast<int>(rng() % 63);
    uint64_t m = rng() >> (64 - bits);
    m = i % 4 == 0 ? std::max<uint64_t>(2, m & ~1ull) : (m | 1ull);
    n[i] = static_cast<int64_t>(m);
    x[i] = static_cast<int64_t>(rng());
    t[i] = static_cast<int64_t>(rng() % 2000);
  }
  const auto gpu = squaringLabels(x.cuda(), n.cuda(), t.cuda()).cpu();
  const auto cpu = squaringLabels(x, n, t);
  EXPECT_TRUE(torch::equal(gpu, cpu)) << "mismatches: " << gpu.ne(cpu).sum().item<int64_t>();
}

}  // namespace
}  // namespace deepladder::trainers::fused
