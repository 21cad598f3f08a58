// Datasets of the squaring task for a tier, deterministic from a seed: unique (N, x, T) prompts
// per (modulus bits, T) cell, a train/test split by prompt, and the evaluation sets (OOD T on
// the training moduli, the depth ladder on the training moduli and on OOD moduli sizes).
// Sizes per tier are documented in tiers.h. Every cell draws from its own random stream, so a
// cell's prompts do not depend on the size of any other cell.
#pragma once

#include <cstdint>
#include <vector>

#include "core/squaring/random.h"
#include "core/squaring/semiprime.h"
#include "core/squaring/tiers.h"
#include "core/squaring/tokens.h"

namespace deepladder::squaring {

struct TierDataset {
  std::string tier;
  uint64_t seed = 0;
  std::vector<Example> train;  // in-distribution T, training moduli (shuffled)
  std::vector<Example> test;   // same cells as train, disjoint prompts
  std::vector<Example> ood_t;  // training moduli at the tier's OOD T
  // Training moduli at every T of the depth ladder. Deliberately not disjoint from train: Max T
  // asks whether every rung is right for every prompt (for N = 323, all 288 x).
  std::vector<Example> depth_seen;
  std::vector<Example> depth_ood_n;  // OOD moduli sizes at every T of the depth ladder
};

// The whole dataset of a tier (train + test + evaluation sets).
TierDataset generateTierDataset(const TierPreset& tier, uint64_t seed);

// Every unit x of a fixed modulus (ascending x) at one T: phi(N) examples.
std::vector<Example> allUnitExamples(const Semiprime& s, int64_t t);

// `count` distinct prompts at one T, each with a fresh semiprime of `bits` bits and a uniform
// unit x (repeats are drawn again). Throws std::logic_error when the prompt space is too small
// for `count` (the presets stay at half of it). Throws UserError for bad bits or t < 0.
std::vector<Example> sampleUniqueExamples(int bits, int64_t t, int64_t count, Rng& rng);

// Generator of single examples without allocation (the benchmark's hot path).
class ExampleGenerator {
 public:
  explicit ExampleGenerator(int bits, uint64_t seed) : bits_(bits), rng_(seed) {
    checkModulusBits(bits);
  }
  Example next(int64_t t) {
    const Semiprime s = sampleSemiprime(bits_, rng_);
    Example e;
    e.n = s.n;
    e.x = sampleUnit(s, rng_);
    e.t = t;
    e.z = Montgomery(s.n).pow(e.x, squaringExponent(t, s.phi));
    return e;
  }

 private:
  int bits_;
  Rng rng_;
};

// Number of prompts per (bits, T) cell for the tier's training cells and evaluation cells.
int64_t trainCellSize(const TierPreset& tier, int bits);
int64_t evalCellSize(const TierPreset& tier, int bits);

}  // namespace deepladder::squaring
