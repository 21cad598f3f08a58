// What a model can reach on the squaring task without doing the arithmetic, the two reference
// lines of an accuracy map:
// - population chance: the share of the commonest answer over all units x of N at that T. The map
//   x -> x^(2^T) is a homomorphism of the unit group (Z/N)* = Z/(p-1) x Z/(q-1), so every answer
//   that occurs occurs equally often, |kernel| = gcd(2^T, p-1) gcd(2^T, q-1) times, and
//       chance(N, T) = gcd(2^T, p-1) gcd(2^T, q-1) / phi(N)
//   (N = 323: 1/72, 1/36, 1/18, 1/9 at T = 1, 2, 3, >= 4). A cell's chance is the mean over its
//   examples (one N for fixed-modulus tiers). It does not depend on which prompts a cell holds, so
//   a small cell cannot look "below chance" by the luck of its draw.
// - composition ceiling (one fixed modulus): the share of a set's prompts (x, T) whose answer
//   follows from chaining training facts, x -a1-> y1 -a2-> ... -ak-> z with a1 + ... + ak = T and
//   every step (y_i, a_i) -> y_{i+1} a training example. A model that learned exactly the
//   training facts and composes them perfectly reaches this, no more (E1 seed 45: about 0.5 on
//   test, 0.88 at T = 6).
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/squaring/dataset.h"
#include "core/squaring/semiprime.h"
#include "core/squaring/tiers.h"
#include "core/squaring/tokens.h"

namespace deepladder::squaring {

// p < q of n = p q (trial division by small primes, then Pollard-Brent rho). Throws UserError
// when n is not a product of two distinct odd primes.
Semiprime factorSemiprime(uint64_t n);

double populationChance(const Semiprime& s, int64_t t);  // t >= 0
double populationChance(uint64_t n, int64_t t);          // factors n first

class CompositionClosure {
 public:
  // The training facts are the examples of `train` with modulus s.n; answers are known for
  // T <= max_t. Throws UserError when N is too large to index (above 2^26).
  CompositionClosure(const Semiprime& s, const std::vector<Example>& train, int64_t max_t);

  uint64_t modulus() const { return s_.n; }
  int64_t maxT() const { return max_t_; }
  // True when chaining training facts gives x^(2^t) (t = 0: the empty chain). False for another
  // modulus; std::out_of_range for t > maxT().
  bool derivable(uint64_t n, uint64_t x, int64_t t) const;
  // The share of `examples` that are derivable (0 for none).
  double ceiling(const std::vector<Example>& examples) const;

 private:
  Semiprime s_;
  int64_t max_t_;
  std::vector<std::vector<uint8_t>> reach_;  // reach_[t][x]
};

// Both reference lines of one example set: its mean population chance and, with a closure, its
// composition ceiling (NaN without one). Zeros for an empty set.
struct SetBaselines {
  double chance = 0;
  double ceiling = 0;
};
SetBaselines setBaselines(const std::vector<Example>& examples, const CompositionClosure* closure);

// The closure of a fixed-modulus tier's training set (nullptr for a tier of sampled moduli).
std::shared_ptr<const CompositionClosure> tierCompositionClosure(const TierPreset& tier,
                                                                 const TierDataset& data);

}  // namespace deepladder::squaring
