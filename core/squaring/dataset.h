// Datasets of the squaring task for a tier, deterministic from a seed: the public benchmark's
// records (reference_generator.h: its sizes, splits and depth cohorts, drawn with Python's
// random module semantics), grouped into train, test, the OOD-T set and the two depth cohorts.
// The same (tier, seed) gives the same examples in either file layout (dataset_io.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/squaring/random.h"
#include "core/squaring/semiprime.h"
#include "core/squaring/tiers.h"
#include "core/squaring/tokens.h"

namespace deepladder::squaring {

struct TierDataset {
  std::string tier;
  uint64_t seed = 0;
  std::vector<Example> train;  // in-distribution T, training moduli
  std::vector<Example> test;   // same cells as train, disjoint prompts
  std::vector<Example> ood_t;  // training moduli at the tier's OOD T ("ood")
  // The seen-moduli depth cohort at every T of the ladder, rung after rung ("depth_t_T"): prompts
  // whose (N, x) no train, test or OOD record uses (for E1 the 38 reserved x); the same pairs at
  // every rung.
  std::vector<Example> depth_seen;
  // The OOD-moduli depth cohort ("depth_ood_n_t_T"): fresh (N, x) pairs of unseen sizes whose N no
  // other record uses; the same pairs at every rung.
  std::vector<Example> depth_ood_n;
};

// The whole dataset of a tier (train + test + evaluation sets): the benchmark's records, or for a
// positive control (control_tiers.h) deepladder's own.
TierDataset generateTierDataset(const TierPreset& tier, uint64_t seed);

// Every unit x of a fixed modulus (ascending x) at one T: phi(N) examples.
std::vector<Example> allUnitExamples(const Semiprime& s, int64_t t);

// Single examples without allocation from deepladder's own xoshiro stream (a fresh semiprime
// per example): the generator speed benchmark's hot path, not the benchmark's records.
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

}  // namespace deepladder::squaring
