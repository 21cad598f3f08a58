// Logit-lens KL CPU reference (kernels/lens_kl_reference.h) against the naive definition in
// double: full logits, log-softmax, sum p (log p - log q), for several vocabulary chunk sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/lens_kl_reference.h"

namespace deepladder::kernels {
namespace {

std::vector<float> randomVector(size_t n, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// log_softmax over rows of a (rows, cols) matrix, in double.
std::vector<double> logSoftmaxRows(const std::vector<double>& logits, int64_t rows, int64_t cols) {
  std::vector<double> out(logits.size());
  for (int64_t r = 0; r < rows; ++r) {
    double m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, logits[r * cols + c]);
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += std::exp(logits[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = logits[r * cols + c] - m - std::log(s);
  }
  return out;
}

// Naive KL(p || softmax(X W^T)) per token: materializes all N x V logits.
std::vector<double> naiveLensKl(const std::vector<float>& x, const std::vector<float>& w,
                                const std::vector<float>& logp, int64_t n, int64_t d, int64_t v) {
  std::vector<double> logits(n * v);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < v; ++j) {
      double dot = 0;
      for (int64_t c = 0; c < d; ++c) dot += double(x[i * d + c]) * w[j * d + c];
      logits[i * v + j] = dot;
    }
  const auto logq = logSoftmaxRows(logits, n, v);
  std::vector<double> kl(n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < v; ++j) {
      const double p = std::exp(double(logp[i * v + j]));
      if (p > 0) kl[i] += p * (logp[i * v + j] - logq[i * v + j]);
    }
  return kl;
}

std::vector<float> randomLogProbs(int64_t n, int64_t v, uint32_t seed, float scale) {
  const auto logits = randomVector(n * v, seed, scale);
  const auto lp = logSoftmaxRows({logits.begin(), logits.end()}, n, v);
  return {lp.begin(), lp.end()};
}

TEST(LensKlReference, MatchesTheNaiveDefinitionForEveryChunkSize) {
  const int64_t n = 9, d = 16, v = 50;
  const auto x = randomVector(n * d, 1, 1.0f);
  const auto w = randomVector(v * d, 2, 0.5f);
  const auto logp = randomLogProbs(n, v, 3, 2.0f);
  const auto expected = naiveLensKl(x, w, logp, n, d, v);
  for (const int64_t chunk : {1, 7, 16, 50, 64, 4096}) {
    std::vector<float> kl(n);
    lensKlReference(x.data(), w.data(), logp.data(), kl.data(), n, d, v, chunk);
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_GT(expected[i], 0.1);  // a non-trivial fixture
      ASSERT_NEAR(kl[i], expected[i], 1e-5 * (1 + expected[i]))
          << "chunk " << chunk << " token " << i;
    }
  }
}

TEST(LensKlReference, IsZeroWhenTheLensIsTheFinalDistribution) {
  const int64_t n = 4, d = 8, v = 300;
  const auto x = randomVector(n * d, 4, 1.0f);
  const auto w = randomVector(v * d, 5, 1.0f);
  std::vector<double> logits(n * v);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < v; ++j)
      for (int64_t c = 0; c < d; ++c) logits[i * v + j] += double(x[i * d + c]) * w[j * d + c];
  const auto lp = logSoftmaxRows(logits, n, v);
  const std::vector<float> logp(lp.begin(), lp.end());
  std::vector<float> kl(n);
  lensKlReference(x.data(), w.data(), logp.data(), kl.data(), n, d, v, 64);
  for (float k : kl) EXPECT_NEAR(k, 0.0, 1e-5);
}

TEST(LensKlReference, ZeroProbabilityEntriesContributeNothing) {
  // p is one-hot on entry 2 (log p = -inf elsewhere): KL = -log q_2.
  const int64_t n = 1, d = 2, v = 4;
  const std::vector<float> x = {1.0f, 0.5f};
  const std::vector<float> w = {1, 0, 0, 1, -1, 2, 0.5f, 0.5f};
  const float inf = INFINITY;
  const std::vector<float> logp = {-inf, -inf, 0.0f, -inf};
  std::vector<float> kl(n);
  lensKlReference(x.data(), w.data(), logp.data(), kl.data(), n, d, v, 3);
  const double s[4] = {1.0, 0.5, 0.0, 0.75};
  double lse = 0;
  for (double si : s) lse += std::exp(si);
  EXPECT_NEAR(kl[0], -(s[2] - std::log(lse)), 1e-6);
  EXPECT_TRUE(std::isfinite(kl[0]));
}

TEST(LensKlReference, AccumulatorMergeIsOrderIndependent) {
  LensKlAccumulator left, right, all;
  const double logits[] = {3.0, -1.0, 10.0, 0.5, 2.0};
  const double logps[] = {-1.0, -2.0, -0.5, -3.0, -4.0};
  for (int i = 0; i < 5; ++i) {
    all.add(logits[i], logps[i]);
    (i < 2 ? left : right).add(logits[i], logps[i]);
  }
  LensKlAccumulator empty;
  right.merge(left);
  right.merge(empty);
  EXPECT_NEAR(right.kl(), all.kl(), 1e-12);
  EXPECT_NEAR(right.max_logit, 10.0, 0);
}

}  // namespace
}  // namespace deepladder::kernels
