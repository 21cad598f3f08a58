// Logit-lens KL, CPU reference (see lens_kl_reference.h for the math).
#include "kernels/lens_kl_reference.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace deepladder::kernels {

void LensKlAccumulator::add(double logit, double logp) {
  if (logit > max_logit) {
    sum_exp = sum_exp * std::exp(max_logit - logit) + 1.0;
    max_logit = logit;
  } else {
    sum_exp += std::exp(logit - max_logit);
  }
  const double p = std::exp(logp);
  if (p > 0) {
    p_dot_logit += p * logit;
    p_dot_logp += p * logp;
  }
}

void LensKlAccumulator::merge(const LensKlAccumulator& other) {
  const double m = std::max(max_logit, other.max_logit);
  if (m == -INFINITY) return;  // both empty
  sum_exp = sum_exp * std::exp(max_logit - m) + other.sum_exp * std::exp(other.max_logit - m);
  max_logit = m;
  p_dot_logit += other.p_dot_logit;
  p_dot_logp += other.p_dot_logp;
}

double LensKlAccumulator::kl() const {
  return p_dot_logp - p_dot_logit + max_logit + std::log(sum_exp);
}

void lensKlReference(const float* states, const float* unembedding, const float* final_logp,
                     float* kl, int64_t tokens, int64_t dim, int64_t vocab, int64_t vocab_chunk) {
  if (vocab_chunk < 1) throw std::invalid_argument("lensKlReference: vocab_chunk must be >= 1");
  std::vector<LensKlAccumulator> running(static_cast<size_t>(tokens));
  std::vector<double> chunk_logits(static_cast<size_t>(vocab_chunk));  // (chunk) for one token
  for (int64_t v0 = 0; v0 < vocab; v0 += vocab_chunk) {
    const int64_t v1 = std::min(vocab, v0 + vocab_chunk);
    for (int64_t n = 0; n < tokens; ++n) {
      const float* x = states + n * dim;  // (d)
      for (int64_t v = v0; v < v1; ++v) {
        const float* w = unembedding + v * dim;  // (d)
        double dot = 0;
        for (int64_t c = 0; c < dim; ++c) dot += static_cast<double>(x[c]) * w[c];
        chunk_logits[static_cast<size_t>(v - v0)] = dot;
      }
      LensKlAccumulator chunk;
      for (int64_t v = v0; v < v1; ++v)
        chunk.add(chunk_logits[static_cast<size_t>(v - v0)], final_logp[n * vocab + v]);
      running[static_cast<size_t>(n)].merge(chunk);
    }
  }
  for (int64_t n = 0; n < tokens; ++n)
    kl[n] = static_cast<float>(running[static_cast<size_t>(n)].kl());
}

}  // namespace deepladder::kernels
