// The benchmark's generator, draw for draw (see reference_generator.h).
#include "core/squaring/reference_generator.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <unordered_set>

#include "core/errors.h"
#include "core/squaring/modular_arithmetic.h"
#include "core/squaring/python_random.h"
#include "core/squaring/random.h"
#include "core/squaring/semiprime.h"

namespace deepladder::squaring {

namespace {

constexpr int kMaxAttempts = 10000;  // every retry loop of the benchmark stops here

// Where the benchmark raises ValueError, for this config and seed it cannot generate either.
[[noreturn]] void fail(const std::string& what) {
  throw UserError("tier data: " + what +
                  ". The benchmark's generator stops with the same error for this tier and seed; "
                  "use another seed");
}

// (N, x) as one 128-bit key and (N, x, T) as a struct; N, x < 2^62.
u128 pairKey(uint64_t n, uint64_t x) {
  return (static_cast<u128>(n) << 64) | x;
}

struct PairHash {
  size_t operator()(u128 key) const {
    uint64_t state =
        static_cast<uint64_t>(key) * 0x9e3779b97f4a7c15ULL ^ static_cast<uint64_t>(key >> 64);
    return static_cast<size_t>(splitMix64(state));
  }
};
using KeySet = std::unordered_set<u128, PairHash>;

struct Prompt {
  uint64_t n, x;
  int64_t t;
  bool operator==(const Prompt& o) const { return n == o.n && x == o.x && t == o.t; }
};
struct PromptHash {
  size_t operator()(const Prompt& p) const {
    uint64_t state =
        (p.n * 0x9e3779b97f4a7c15ULL) ^ (p.x * 0xbf58476d1ce4e5b9ULL) ^ static_cast<uint64_t>(p.t);
    return static_cast<size_t>(splitMix64(state));
  }
};

class Generator {
 public:
  explicit Generator(const ReferenceConfig& config) : c_(config), rng_(config.seed) {}

  std::vector<ReferenceRecord> run() {
    const std::vector<int64_t> times = c_.timeSettings();
    if (c_.fixedModulus() && !c_.depth_evaluation_time_steps.empty()) reserveDepthUnits(times);
    const std::vector<int> settings = c_.fixedModulus() ? std::vector<int>{0} : c_.modulus_bits;
    const auto counts = splitCounts(c_.examples_per_setting, {c_.train_fraction, c_.test_fraction});
    for (int bits : settings)
      for (int64_t t : times) {
        for (int64_t i = 0; i < counts[0]; ++i) addUniqueRecord(bits, t, ReferenceSplit::kTrain);
        for (int64_t i = 0; i < counts[1]; ++i) addUniqueRecord(bits, t, ReferenceSplit::kTest);
      }
    for (int bits : settings)
      for (int64_t t : c_.ood_time_steps)
        for (int64_t i = 0; i < c_.effectiveOodExamples(); ++i)
          addUniqueRecord(bits, t, ReferenceSplit::kOod);
    if (!c_.depth_evaluation_time_steps.empty()) {
      addDepthCohort();
      addOodNDepthCohort();
    }
    return std::move(records_);
  }

 private:
  struct Pair {
    uint64_t p, q, x;
  };
  using Cohort = std::vector<std::pair<int, std::vector<Pair>>>;  // per bits (0 = fixed)

  uint64_t samplePrime(int bits) {
    if (bits < 2) fail("prime bit length must be at least 2");
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
      const uint64_t value = rng_.getrandbits(bits) | 1 | (uint64_t{1} << (bits - 1));
      if (isPrimeFast(value)) return value;
    }
    fail("could not sample a " + std::to_string(bits) + "-bit prime");
  }

  std::pair<uint64_t, uint64_t> sampleFactors(int bits) {
    const int p_bits = bits / 2, q_bits = bits - p_bits;
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
      const uint64_t p = samplePrime(p_bits);
      const uint64_t q = samplePrime(q_bits);
      if (p != q && bitLength(p * q) == bits) return {p, q};
    }
    fail("could not sample a " + std::to_string(bits) + "-bit RSA modulus");
  }

  uint64_t sampleUnit(uint64_t n) {
    for (;;) {
      const uint64_t x = static_cast<uint64_t>(rng_.randrange(1, static_cast<int64_t>(n)));
      if (gcd(x, n) == 1) return x;
    }
  }

  void add(uint64_t p, uint64_t q, uint64_t x, int64_t t, ReferenceSplit split, int bits) {
    ReferenceRecord r;
    r.p = p;
    r.q = q;
    r.modulus = p * q;
    r.x = x;
    r.time_steps = t;
    r.result = powMod(x, squaringExponent(t, (p - 1) * (q - 1)), r.modulus);
    r.configured_bits = bits;
    r.split = split;
    records_.push_back(r);
  }

  // _generate_record: fixed or fresh factors and a unit x until (N, x, T) is new.
  void addUniqueRecord(int bits, int64_t t, ReferenceSplit split) {
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
      const auto [p, q] = bits == 0 ? std::pair{c_.fixed_p, c_.fixed_q} : sampleFactors(bits);
      const uint64_t x = sampleUnit(p * q);
      if (seen_prompts_.insert(Prompt{p * q, x, t}).second) return add(p, q, x, t, split, bits);
    }
    fail("could not generate a unique (modulus, x, time_steps) prompt after 10,000 attempts");
  }

  std::vector<uint64_t> fixedUnits() const {
    const uint64_t n = c_.fixed_p * c_.fixed_q;
    std::vector<uint64_t> units;
    for (uint64_t x = 1; x < n; ++x)
      if (gcd(x, n) == 1) units.push_back(x);
    return units;
  }

  void reserveDepthUnits(const std::vector<int64_t>& times) {
    const uint64_t n = c_.fixed_p * c_.fixed_q;
    const std::vector<uint64_t> units = fixedUnits();
    const int64_t required = std::max(c_.examples_per_setting, c_.effectiveOodExamples());
    const int64_t reserve = c_.depth_evaluation_exhaustive_x
                                ? static_cast<int64_t>(units.size()) - required
                                : c_.depth_evaluation_examples_per_setting.value_or(0);
    if (reserve < 1) fail("fixed-N depth evaluation requires at least one reserved unit");
    if (required + reserve > static_cast<int64_t>(units.size()))
      fail("fixed-N depth evaluation lacks enough unique x values");
    const auto reserved = rng_.sample(units, static_cast<size_t>(reserve));
    std::vector<int64_t> all_t = times;
    all_t.insert(all_t.end(), c_.ood_time_steps.begin(), c_.ood_time_steps.end());
    for (int64_t t : all_t)
      for (uint64_t x : reserved) seen_prompts_.insert(Prompt{n, x, t});
  }

  KeySet usedPairs() const {
    KeySet used;
    used.reserve(records_.size() * 2);
    for (const auto& r : records_) used.insert(pairKey(r.modulus, r.x));
    return used;
  }

  // Draws `count` fresh (N, x) pairs from a factor pool weighted by phi (rng.choices).
  std::vector<Pair> drawFromPool(const std::vector<std::pair<uint64_t, uint64_t>>& pool,
                                 int64_t count, KeySet& used) {
    std::vector<uint64_t> cumulative;
    uint64_t sum = 0;
    for (const auto& [p, q] : pool) cumulative.push_back(sum += (p - 1) * (q - 1));
    std::vector<Pair> matched;
    for (int64_t i = 0; i < count; ++i) {
      bool found = false;
      for (int attempt = 0; attempt < kMaxAttempts && !found; ++attempt) {
        const auto [p, q] = pool[rng_.weightedChoiceIndex(cumulative)];
        const uint64_t x = sampleUnit(p * q);
        if (used.insert(pairKey(p * q, x)).second) {
          matched.push_back({p, q, x});
          found = true;
        }
      }
      if (!found) fail("could not sample a fresh seen-N depth pair after 10,000 attempts");
    }
    return matched;
  }

  // The smallest prime factor and its cofactor (_factor_semiprime).
  static std::pair<uint64_t, uint64_t> factorSemiprime(uint64_t n) {
    for (uint64_t p = 2; p * p <= n; ++p)
      if (n % p == 0 && isPrime(p) && isPrime(n / p)) return {p, n / p};
    fail("could not recover prime factors for modulus " + std::to_string(n));
  }

  void writeCohort(const Cohort& cohort, ReferenceSplit split) {
    for (int64_t t : c_.depth_evaluation_time_steps)
      for (const auto& [bits, pairs] : cohort)
        for (const Pair& m : pairs) add(m.p, m.q, m.x, t, split, bits);
  }

  void addDepthCohort() {
    Cohort cohort;
    KeySet used = usedPairs();
    if (c_.depth_evaluation_exhaustive_x) {
      const uint64_t n = c_.fixed_p * c_.fixed_q;
      std::vector<Pair> unused;
      for (uint64_t x : fixedUnits())
        if (!used.count(pairKey(n, x))) unused.push_back({c_.fixed_p, c_.fixed_q, x});
      if (unused.empty()) fail("depth_evaluation_exhaustive_x found no held-out fixed-N prompts");
      cohort.push_back({0, unused});
    } else {
      const int64_t count = c_.depth_evaluation_examples_per_setting.value_or(0);
      std::vector<std::pair<int, std::vector<std::pair<uint64_t, uint64_t>>>> pools;
      if (c_.fixedModulus()) {
        pools.push_back({0, {{c_.fixed_p, c_.fixed_q}}});
      } else {
        for (int bits : c_.modulus_bits) {
          std::set<uint64_t> training;  // sorted(training_moduli)
          for (const auto& r : records_)
            if (r.split == ReferenceSplit::kTrain && r.configured_bits == bits)
              training.insert(r.modulus);
          const std::vector<uint64_t> sorted(training.begin(), training.end());
          const auto take = std::min<size_t>(sorted.size(), static_cast<size_t>(count));
          std::vector<std::pair<uint64_t, uint64_t>> pool;
          for (uint64_t m : rng_.sample(sorted, take)) pool.push_back(factorSemiprime(m));
          pools.push_back({bits, pool});
        }
      }
      for (const auto& [bits, pool] : pools) {
        if (pool.empty())
          fail("no training moduli available for depth profile at " + std::to_string(bits) +
               " bits");
        cohort.push_back({bits, drawFromPool(pool, count, used)});
      }
    }
    writeCohort(cohort, ReferenceSplit::kDepth);
  }

  void addOodNDepthCohort() {
    const auto& count = c_.ood_n_depth_evaluation_examples_per_setting;
    if (c_.ood_n_depth_evaluation_modulus_bits.empty() || !count) return;
    std::unordered_set<uint64_t> existing_moduli;
    for (const auto& r : records_) existing_moduli.insert(r.modulus);
    KeySet used = usedPairs();
    Cohort cohort;
    for (int bits : c_.ood_n_depth_evaluation_modulus_bits) {
      std::vector<Pair> matched;
      for (int64_t i = 0; i < *count; ++i) {
        bool found = false;
        for (int attempt = 0; attempt < kMaxAttempts && !found; ++attempt) {
          const auto [p, q] = sampleFactors(bits);
          const uint64_t x = sampleUnit(p * q);
          if (!existing_moduli.count(p * q) && used.insert(pairKey(p * q, x)).second) {
            matched.push_back({p, q, x});
            found = true;
          }
        }
        if (!found)
          fail("could not sample a fresh OOD-N depth-evaluation prompt after 10,000 attempts");
      }
      cohort.push_back({bits, matched});
    }
    writeCohort(cohort, ReferenceSplit::kDepthOodN);
  }

  const ReferenceConfig& c_;
  PythonRandom rng_;
  std::vector<ReferenceRecord> records_;
  std::unordered_set<Prompt, PromptHash> seen_prompts_;
};

}  // namespace

std::string referenceSplitName(const ReferenceRecord& record) {
  switch (record.split) {
    case ReferenceSplit::kTrain:
      return "train";
    case ReferenceSplit::kTest:
      return "test";
    case ReferenceSplit::kOod:
      return "ood";
    case ReferenceSplit::kDepth:
      return "depth_t_" + std::to_string(record.time_steps);
    case ReferenceSplit::kDepthOodN:
      return "depth_ood_n_t_" + std::to_string(record.time_steps);
  }
  return "?";
}

std::vector<int64_t> splitCounts(int64_t total, const std::vector<double>& fractions) {
  const size_t n = fractions.size();
  if (total < 1) fail("cannot assign splits for an empty dataset");
  if (std::count_if(fractions.begin(), fractions.end(), [](double f) { return f > 0; }) > total)
    fail(std::to_string(total) + " examples cannot populate every positive split");
  std::vector<double> exact(n);
  std::vector<int64_t> counts(n);
  int64_t assigned = 0;
  for (size_t i = 0; i < n; ++i) {
    exact[i] = static_cast<double>(total) * fractions[i];
    counts[i] = static_cast<int64_t>(exact[i]);  // int() truncates
    assigned += counts[i];
  }
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  // sorted(..., reverse=True) is stable: equal keys keep their order.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const double ra = exact[a] - static_cast<double>(counts[a]);
    const double rb = exact[b] - static_cast<double>(counts[b]);
    return ra != rb ? ra > rb : fractions[a] > fractions[b];
  });
  // remainders[: total - assigned] (a negative bound drops that many from the end).
  const int64_t bound = total - assigned;
  const int64_t take = bound >= 0 ? std::min<int64_t>(bound, static_cast<int64_t>(n))
                                  : std::max<int64_t>(0, static_cast<int64_t>(n) + bound);
  for (int64_t i = 0; i < take; ++i) ++counts[order[static_cast<size_t>(i)]];
  for (size_t i = 0; i < n; ++i) {
    if (fractions[i] <= 0 || counts[i] > 0) continue;
    const size_t donor = static_cast<size_t>(std::max_element(counts.begin(), counts.end()) -
                                             counts.begin());  // first maximum
    if (counts[donor] <= 1) fail("split allocation could not satisfy positive split fractions");
    --counts[donor];
    counts[i] = 1;
  }
  return counts;
}

std::vector<ReferenceRecord> generateReferenceRecords(const ReferenceConfig& config) {
  checkReferenceConfig(config);
  return Generator(config).run();
}

}  // namespace deepladder::squaring
