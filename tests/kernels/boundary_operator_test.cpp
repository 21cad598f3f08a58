// Boundary operator CPU reference (kernels/boundary_operator_reference.h) against a naive
// double-precision implementation written from the formula, and its backward against central
// finite differences of that naive forward.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/boundary_operator_reference.h"

namespace deepladder::kernels {
namespace {

std::vector<float> randomVector(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// y = h / sqrt(mean(h^2) + eps) + alpha e, straight from the definition, in double.
std::vector<double> naiveForward(const std::vector<double>& h, const std::vector<double>& e,
                                 int64_t rows, int64_t dim, double alpha, double eps) {
  std::vector<double> y(h.size());
  for (int64_t r = 0; r < rows; ++r) {
    double mean_square = 0;
    for (int64_t c = 0; c < dim; ++c) mean_square += h[r * dim + c] * h[r * dim + c] / dim;
    const double rms = std::sqrt(mean_square + eps);
    for (int64_t c = 0; c < dim; ++c)
      y[r * dim + c] = h[r * dim + c] / rms + alpha * e[r * dim + c];
  }
  return y;
}

std::vector<double> toDouble(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

TEST(BoundaryOperatorReference, ForwardMatchesTheFormulaForSeveralWidthsAndAlphas) {
  for (const int64_t dim : {1, 7, 64, 1000}) {
    for (const float alpha : {0.0f, 1.0f, -1.3f}) {
      const int64_t rows = 5;
      const auto h = randomVector(rows * dim, 1, 2.0f);
      const auto e = randomVector(rows * dim, 2);
      std::vector<float> y(h.size()), inv_rms(rows);
      boundaryOperatorForwardReference(h.data(), e.data(), y.data(), inv_rms.data(), rows, dim,
                                       alpha, 1e-6f);
      const auto expected = naiveForward(toDouble(h), toDouble(e), rows, dim, alpha, 1e-6);
      for (size_t i = 0; i < y.size(); ++i)
        ASSERT_NEAR(y[i], expected[i], 1e-5 * (1 + std::abs(expected[i])))
            << "dim " << dim << " i " << i;
      for (int64_t r = 0; r < rows; ++r) {
        double mean_square = 0;
        for (int64_t c = 0; c < dim; ++c)
          mean_square += double(h[r * dim + c]) * h[r * dim + c] / dim;
        EXPECT_NEAR(inv_rms[r], 1 / std::sqrt(mean_square + 1e-6), 1e-6 / std::sqrt(mean_square));
      }
    }
  }
}

TEST(BoundaryOperatorReference, ZeroStateGivesAlphaTimesEmbedding) {
  const int64_t rows = 2, dim = 8;
  const std::vector<float> h(rows * dim, 0.0f);
  const auto e = randomVector(rows * dim, 3);
  std::vector<float> y(h.size()), inv_rms(rows);
  boundaryOperatorForwardReference(h.data(), e.data(), y.data(), inv_rms.data(), rows, dim, 0.5f,
                                   1e-6f);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_FLOAT_EQ(y[i], 0.5f * e[i]);
  EXPECT_NEAR(inv_rms[0], 1000.0, 1e-3);  // 1 / sqrt(eps)
}

TEST(BoundaryOperatorReference, BackwardMatchesFiniteDifferencesOfTheNaiveForward) {
  const int64_t rows = 3, dim = 13;
  const double alpha = 0.7, eps = 1e-5;
  const auto h = randomVector(rows * dim, 4);
  const auto e = randomVector(rows * dim, 5);
  const auto dy = randomVector(rows * dim, 6);  // loss L = sum(dy * y)
  std::vector<float> y(h.size()), inv_rms(rows), dh(h.size()), de(h.size()), dalpha(rows);
  boundaryOperatorForwardReference(h.data(), e.data(), y.data(), inv_rms.data(), rows, dim,
                                   float(alpha), float(eps));
  boundaryOperatorBackwardReference(h.data(), e.data(), inv_rms.data(), dy.data(), dh.data(),
                                    de.data(), dalpha.data(), rows, dim, float(alpha));
  auto loss = [&](const std::vector<double>& hh, const std::vector<double>& ee, double a) {
    const auto yy = naiveForward(hh, ee, rows, dim, a, eps);
    double l = 0;
    for (size_t i = 0; i < yy.size(); ++i) l += yy[i] * dy[i];
    return l;
  };
  const double step = 1e-6;
  const auto hd = toDouble(h), ed = toDouble(e);
  for (size_t i = 0; i < h.size(); ++i) {
    auto plus = hd, minus = hd;
    plus[i] += step;
    minus[i] -= step;
    const double numeric = (loss(plus, ed, alpha) - loss(minus, ed, alpha)) / (2 * step);
    ASSERT_NEAR(dh[i], numeric, 1e-4 * (1 + std::abs(numeric))) << "dh[" << i << "]";
    auto eplus = ed, eminus = ed;
    eplus[i] += step;
    eminus[i] -= step;
    const double numeric_e = (loss(hd, eplus, alpha) - loss(hd, eminus, alpha)) / (2 * step);
    ASSERT_NEAR(de[i], numeric_e, 1e-5 * (1 + std::abs(numeric_e))) << "de[" << i << "]";
  }
  // dalpha summed over rows = dL/dalpha.
  double dalpha_total = 0;
  for (float v : dalpha) dalpha_total += v;
  const double numeric_alpha =
      (loss(hd, ed, alpha + step) - loss(hd, ed, alpha - step)) / (2 * step);
  EXPECT_NEAR(dalpha_total, numeric_alpha, 1e-4 * (1 + std::abs(numeric_alpha)));
}

TEST(BoundaryOperatorReference, OptionalBackwardOutputsMayBeNull) {
  const int64_t rows = 2, dim = 4;
  const auto h = randomVector(rows * dim, 7);
  const auto dy = randomVector(rows * dim, 8);
  std::vector<float> y(h.size()), inv_rms(rows), dh(h.size());
  boundaryOperatorForwardReference(h.data(), h.data(), y.data(), inv_rms.data(), rows, dim, 1.0f,
                                   1e-6f);
  boundaryOperatorBackwardReference(h.data(), nullptr, inv_rms.data(), dy.data(), dh.data(),
                                    nullptr, nullptr, rows, dim, 1.0f);
  for (float v : dh) EXPECT_TRUE(std::isfinite(v));
}

}  // namespace
}  // namespace deepladder::kernels
