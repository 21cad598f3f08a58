// The CPU references against plain LibTorch ops (float64): the boundary operator forward with
// its gradients from autograd, and the lens KL from full logits, log_softmax and a sum.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/boundary_operator_reference.h"
#include "kernels/lens_kl_reference.h"

namespace deepladder::kernels {
namespace {

// ||a - b|| / ||b||, both converted to float64.
double normalizedError(const torch::Tensor& a, const torch::Tensor& b) {
  const auto bd = b.to(torch::kFloat64);
  return ((a.to(torch::kFloat64) - bd).norm() / bd.norm().clamp_min(1e-30)).item<double>();
}

TEST(KernelsVsLibTorch, BoundaryOperatorForwardAndBackwardMatchAutograd) {
  torch::manual_seed(11);
  const int64_t rows = 24, dim = 96;
  const double alpha = 0.8, eps = 1e-6;
  auto h = torch::randn({rows, dim}, torch::kFloat32) * 3;
  auto e = torch::randn({rows, dim}, torch::kFloat32);
  auto dy = torch::randn({rows, dim}, torch::kFloat32);
  auto y = torch::empty_like(h), dh = torch::empty_like(h), de = torch::empty_like(h);
  auto inv_rms = torch::empty({rows}), dalpha = torch::empty({rows});
  boundaryOperatorForwardReference(h.data_ptr<float>(), e.data_ptr<float>(), y.data_ptr<float>(),
                                   inv_rms.data_ptr<float>(), rows, dim, float(alpha), float(eps));
  boundaryOperatorBackwardReference(h.data_ptr<float>(), e.data_ptr<float>(),
                                    inv_rms.data_ptr<float>(), dy.data_ptr<float>(),
                                    dh.data_ptr<float>(), de.data_ptr<float>(),
                                    dalpha.data_ptr<float>(), rows, dim, float(alpha));

  auto h64 = h.to(torch::kFloat64).requires_grad_(true);
  auto e64 = e.to(torch::kFloat64).requires_grad_(true);
  auto a64 = torch::tensor(alpha, torch::kFloat64).requires_grad_(true);
  auto y64 = h64 * torch::rsqrt(h64.pow(2).mean(-1, true) + eps) + a64 * e64;
  y64.backward(dy.to(torch::kFloat64));
  EXPECT_LT(normalizedError(y, y64.detach()), 1e-6);
  EXPECT_LT(normalizedError(dh, h64.grad()), 1e-6);
  EXPECT_LT(normalizedError(de, e64.grad()), 1e-6);
  EXPECT_NEAR(dalpha.to(torch::kFloat64).sum().item<double>(), a64.grad().item<double>(),
              1e-5 * (1 + std::abs(a64.grad().item<double>())));
}

TEST(KernelsVsLibTorch, LensKlMatchesLogSoftmaxOfFullLogits) {
  torch::manual_seed(12);
  const int64_t n = 40, d = 32, v = 777;
  auto x = torch::randn({n, d});
  auto w = torch::randn({v, d}) * 0.3;
  auto logp = torch::log_softmax(torch::randn({n, v}) * 2, -1);
  auto kl = torch::empty({n});
  lensKlReference(x.data_ptr<float>(), w.data_ptr<float>(), logp.data_ptr<float>(),
                  kl.data_ptr<float>(), n, d, v, 128);
  const auto logp64 = logp.to(torch::kFloat64);
  const auto logq64 =
      torch::log_softmax(x.to(torch::kFloat64).matmul(w.to(torch::kFloat64).t()), -1);
  const auto expected = (logp64.exp() * (logp64 - logq64)).sum(-1);  // (n)
  EXPECT_LT(normalizedError(kl, expected), 1e-6);
}

}  // namespace
}  // namespace deepladder::kernels
