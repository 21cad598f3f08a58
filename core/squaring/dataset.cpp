// Tier dataset generation: unique prompts per cell, split by prompt, evaluation sets.
#include "core/squaring/dataset.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace deepladder::squaring {

namespace {

// Random streams of one seed: one per (set, bits, T) cell.
enum StreamKind : uint64_t {
  kTrainPool = 1,
  kSplit = 2,
  kOodT = 3,
  kDepthSeen = 4,
  kDepthOodN = 5
};

uint64_t streamId(StreamKind kind, int bits, int64_t t) {
  return (static_cast<uint64_t>(kind) << 48) ^ (static_cast<uint64_t>(bits) << 32) ^
         static_cast<uint64_t>(t);
}

struct PromptKeyHash {
  size_t operator()(u128 key) const {
    uint64_t state = static_cast<uint64_t>(key) ^ (static_cast<uint64_t>(key >> 64) * 31);
    return static_cast<size_t>(splitMix64(state));
  }
};

// Fisher-Yates with our Rng (std::shuffle's algorithm is not fixed by the standard).
void shuffleExamples(std::vector<Example>& examples, Rng& rng) {
  for (size_t i = examples.size(); i > 1; --i) std::swap(examples[i - 1], examples[rng.below(i)]);
}

void append(std::vector<Example>& to, const std::vector<Example>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// Examples of one cell: all units for a fixed modulus, else `count` sampled prompts.
std::vector<Example> cellExamples(const TierPreset& tier, int bits, int64_t t, int64_t count,
                                  StreamKind kind, uint64_t seed) {
  if (tier.fixedModulus())
    return allUnitExamples(semiprimeFromFactors(tier.fixed_p, tier.fixed_q), t);
  Rng rng(seed, streamId(kind, bits, t));
  return sampleUniqueExamples(bits, t, count, rng);
}

}  // namespace

std::vector<Example> allUnitExamples(const Semiprime& s, int64_t t) {
  checkSquaringCount(t);
  const uint64_t exponent = squaringExponent(t, s.phi);
  const Montgomery mont(s.n);
  std::vector<Example> out;
  out.reserve(s.phi);
  for (uint64_t x = 1; x < s.n; ++x) {
    if (x % s.p == 0 || x % s.q == 0) continue;
    out.push_back(Example{s.n, x, mont.pow(x, exponent), t});
  }
  return out;
}

std::vector<Example> sampleUniqueExamples(int bits, int64_t t, int64_t count, Rng& rng) {
  checkModulusBits(bits);
  checkSquaringCount(t);
  std::vector<Example> out;
  out.reserve(static_cast<size_t>(count));
  std::unordered_set<u128, PromptKeyHash> seen;
  seen.reserve(static_cast<size_t>(count) * 2);
  const int64_t max_attempts = 50 * count + 10000;
  int64_t attempts = 0;
  while (static_cast<int64_t>(out.size()) < count) {
    if (++attempts > max_attempts)
      throw std::logic_error("squaring: cannot draw " + std::to_string(count) +
                             " distinct prompts of " + std::to_string(bits) +
                             " bits; the prompt space is too small");
    const Semiprime s = sampleSemiprime(bits, rng);
    const uint64_t x = sampleUnit(s, rng);
    if (!seen.insert((static_cast<u128>(s.n) << 64) | x).second) continue;
    out.push_back(Example{s.n, x, Montgomery(s.n).pow(x, squaringExponent(t, s.phi)), t});
  }
  return out;
}

int64_t trainCellSize(const TierPreset& tier, int bits) {
  if (tier.fixedModulus())
    return static_cast<int64_t>(semiprimeFromFactors(tier.fixed_p, tier.fixed_q).phi);
  const uint64_t half = distinctPromptsPerT(bits) / 2;
  return static_cast<int64_t>(std::min<uint64_t>(static_cast<uint64_t>(tier.train_cell_cap), half));
}

int64_t evalCellSize(const TierPreset& tier, int bits) {
  const uint64_t half = distinctPromptsPerT(bits) / 2;
  return static_cast<int64_t>(std::min<uint64_t>(static_cast<uint64_t>(tier.eval_cell_cap), half));
}

TierDataset generateTierDataset(const TierPreset& tier, uint64_t seed) {
  TierDataset data;
  data.tier = tier.name;
  data.seed = seed;

  // Train and test: the in-distribution cells pooled, shuffled, and cut by the fractions.
  std::vector<Example> pool;
  for (int bits : tier.modulus_bits)
    for (int64_t t : tier.train_t)
      append(pool, cellExamples(tier, bits, t, trainCellSize(tier, bits), kTrainPool, seed));
  Rng split_rng(seed, streamId(kSplit, 0, 0));
  shuffleExamples(pool, split_rng);
  const auto train_count =
      static_cast<size_t>(std::llround(static_cast<double>(pool.size()) * tier.train_fraction));
  data.train.assign(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(train_count));
  data.test.assign(pool.begin() + static_cast<std::ptrdiff_t>(train_count), pool.end());

  // Evaluation sets: cell by cell in (bits, T) order.
  for (int bits : tier.modulus_bits)
    append(data.ood_t, cellExamples(tier, bits, tier.ood_t, evalCellSize(tier, bits), kOodT, seed));
  for (int bits : tier.modulus_bits)
    for (int64_t t : tier.depth_ladder)
      append(data.depth_seen,
             cellExamples(tier, bits, t, evalCellSize(tier, bits), kDepthSeen, seed));
  TierPreset unseen = tier;  // OOD moduli are always drawn by size
  unseen.fixed_p = unseen.fixed_q = 0;
  for (int bits : tier.ood_modulus_bits)
    for (int64_t t : tier.depth_ladder)
      append(data.depth_ood_n,
             cellExamples(unseen, bits, t, evalCellSize(tier, bits), kDepthOodN, seed));
  return data;
}

}  // namespace deepladder::squaring
