// Logit-lens KL, CPU reference (plain C++, float32 in, double accumulation). The CUDA kernel
// (lens_kl.cuh) must match it; the trainer falls back to it on the CPU.
//
// Math. For one block l and N tokens, the caller passes
//   X     (N, d)  the block's residual states after the model's final norm (caller applies it),
//   W     (V, d)  the unembedding (rows are vocabulary entries; tied or not),
//   logp  (N, V)  the final distribution's log-probabilities, log p = log_softmax(final logits).
// Per token n, with s_v = X[n] . W[v] the lens logits and q = softmax(s):
//   KL(p || q) = sum_v p_v (log p_v - log q_v)
//              = sum_v p_v log p_v  -  sum_v p_v s_v  +  logsumexp_v(s_v)       (sum_v p_v = 1)
// Terms with p_v = 0 contribute 0. The vocabulary is visited in chunks of `vocab_chunk`
// entries; per chunk only the (max, sum exp) pair of an online log-sum-exp and the two p-sums
// are kept, so no N x V lens logits ever exist (memory O(N + chunk), not O(N V)).
#pragma once

#include <cstdint>
#include <limits>

namespace deepladder::kernels {

// kl: (N) output in nats. vocab_chunk >= 1.
void lensKlReference(const float* states, const float* unembedding, const float* final_logp,
                     float* kl, int64_t tokens, int64_t dim, int64_t vocab,
                     int64_t vocab_chunk = 512);

// Running state of the online log-sum-exp over vocabulary chunks, for one token.
struct LensKlAccumulator {
  double max_logit = -std::numeric_limits<double>::infinity();  // m: max of s_v seen so far
  double sum_exp = 0;                                           // l: sum of exp(s_v - m)
  double p_dot_logit = 0;                                       // b: sum p_v s_v
  double p_dot_logp = 0;                                        // a: sum p_v log p_v

  void add(double logit, double logp);         // one vocabulary entry
  void merge(const LensKlAccumulator& other);  // combine two disjoint vocabulary ranges
  double kl() const;                           // a - b + m + log(l)
};

}  // namespace deepladder::kernels
