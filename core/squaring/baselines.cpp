// Population chance and the composition ceiling of the squaring task (see baselines.h).
#include "core/squaring/baselines.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "core/errors.h"
#include "core/squaring/modular_arithmetic.h"

namespace deepladder::squaring {

namespace {

uint64_t absDiff(uint64_t a, uint64_t b) {
  return a > b ? a - b : b - a;
}

// A non-trivial factor of an odd composite n (Brent's variant of Pollard's rho).
uint64_t pollardBrent(uint64_t n) {
  for (uint64_t c = 1;; ++c) {
    auto f = [&](uint64_t v) { return (mulModGeneric(v, v, n) + c) % n; };
    uint64_t y = 2, x = 2, ys = 2, g = 1, q = 1;
    const uint64_t m = 128;
    for (uint64_t r = 1; g == 1; r *= 2) {
      x = y;
      for (uint64_t i = 0; i < r; ++i) y = f(y);
      for (uint64_t k = 0; k < r && g == 1; k += m) {
        ys = y;
        for (uint64_t i = 0; i < std::min(m, r - k); ++i) {
          y = f(y);
          q = mulModGeneric(q, absDiff(x, y), n);
        }
        g = gcd(q, n);
      }
    }
    if (g == n) {  // the batch overshot: step one at a time from the saved point
      do {
        ys = f(ys);
        g = gcd(absDiff(x, ys), n);
      } while (g == 1);
    }
    if (g != n) return g;
  }
}

[[noreturn]] void notSemiprime(uint64_t n) {
  throw UserError("N = " + std::to_string(n) +
                  " is not a product of two distinct odd primes; the squaring task's moduli are");
}

Semiprime fromFactors(uint64_t n, uint64_t a, uint64_t b) {
  const uint64_t p = std::min(a, b), q = std::max(a, b);
  if (p == q || p < 3 || !isPrime(p) || !isPrime(q)) notSemiprime(n);
  return semiprimeFromFactors(p, q);
}

int twoAdicValuation(uint64_t v) {
  return __builtin_ctzll(v);
}

}  // namespace

Semiprime factorSemiprime(uint64_t n) {
  if (n < 15 || n % 2 == 0) notSemiprime(n);
  for (uint64_t p = 3; p < 65536 && p * p <= n; p += 2)
    if (n % p == 0) return fromFactors(n, p, n / p);
  if (isPrime(n)) notSemiprime(n);
  const uint64_t d = pollardBrent(n);
  return fromFactors(n, d, n / d);
}

double populationChance(const Semiprime& s, int64_t t) {
  checkSquaringCount(t);
  // gcd(2^t, p - 1) = 2^min(t, v2(p - 1)); the kernel of x -> x^(2^t) has the product of both.
  const int64_t kernel_log2 = std::min<int64_t>(t, twoAdicValuation(s.p - 1)) +
                              std::min<int64_t>(t, twoAdicValuation(s.q - 1));
  return std::ldexp(1.0, static_cast<int>(kernel_log2)) / static_cast<double>(s.phi);
}

double populationChance(uint64_t n, int64_t t) {
  return populationChance(factorSemiprime(n), t);
}

CompositionClosure::CompositionClosure(const Semiprime& s, const std::vector<Example>& train,
                                       int64_t max_t)
    : s_(s), max_t_(max_t) {
  checkSquaringCount(max_t);
  if (s.n > (uint64_t{1} << 26) / static_cast<uint64_t>(max_t + 1))
    throw UserError("composition ceiling: N = " + std::to_string(s.n) + " with T up to " +
                    std::to_string(max_t) +
                    " is too large to tabulate; it is for fixed moduli "
                    "of the easy and medium tiers");
  std::map<int64_t, std::vector<std::pair<uint64_t, uint64_t>>> facts;  // T -> (x, answer)
  for (const Example& e : train)
    if (e.n == s.n && e.t >= 1 && e.t <= max_t) facts[e.t].push_back({e.x, e.z});
  reach_.assign(static_cast<size_t>(max_t + 1), std::vector<uint8_t>(s.n, 0));
  std::fill(reach_[0].begin(), reach_[0].end(), 1);  // the empty chain: x^(2^0) = x
  for (int64_t t = 1; t <= max_t; ++t) {
    auto& here = reach_[static_cast<size_t>(t)];
    for (const auto& [a, pairs] : facts) {
      if (a > t) break;
      const auto& rest = reach_[static_cast<size_t>(t - a)];
      for (const auto& [x, y] : pairs)
        if (rest[y]) here[x] = 1;  // first step a fact, the rest a chain of length t - a
    }
  }
}

bool CompositionClosure::derivable(uint64_t n, uint64_t x, int64_t t) const {
  if (t < 0 || t > max_t_)
    throw std::out_of_range("composition ceiling: T = " + std::to_string(t) + " beyond " +
                            std::to_string(max_t_));
  return n == s_.n && x < s_.n && reach_[static_cast<size_t>(t)][x] != 0;
}

double CompositionClosure::ceiling(const std::vector<Example>& examples) const {
  if (examples.empty()) return 0.0;
  int64_t reached = 0;
  for (const Example& e : examples) reached += derivable(e.n, e.x, e.t);
  return static_cast<double>(reached) / static_cast<double>(examples.size());
}

SetBaselines setBaselines(const std::vector<Example>& examples, const CompositionClosure* closure) {
  SetBaselines out;
  if (examples.empty()) return out;
  std::unordered_map<uint64_t, Semiprime> factors;
  double sum = 0;
  for (const Example& e : examples) {
    auto it = factors.find(e.n);
    if (it == factors.end()) it = factors.emplace(e.n, factorSemiprime(e.n)).first;
    sum += populationChance(it->second, e.t);
  }
  out.chance = sum / static_cast<double>(examples.size());
  out.ceiling = closure ? closure->ceiling(examples) : std::nan("");
  return out;
}

std::shared_ptr<const CompositionClosure> tierCompositionClosure(const TierPreset& tier,
                                                                 const TierDataset& data) {
  if (!tier.fixedModulus()) return nullptr;
  return std::make_shared<const CompositionClosure>(
      semiprimeFromFactors(tier.fixed_p, tier.fixed_q), data.train, tier.maxT());
}

}  // namespace deepladder::squaring
