// The public benchmark's data generator (tilde-research/one-layer-deeper, data/squaring_mod.py,
// prompt-grouped splits, as every tier E1-M5 uses it) replayed in C++: the same config and seed
// give the same records in the same order, because every draw goes through PythonRandom in the
// generator's own call order:
//   1. fixed N with a depth ladder: reserve x for the depth cohort first, rng.sample(units, r),
//      r = phi(N) - max(examples, OOD examples) when exhaustive (E1: 38), else the depth count;
//      the reserved (N, x, T) count as used for every training and OOD T;
//   2. per (bits, T): the train then the test share of `examples_per_setting` unique prompts
//      (fresh factors by getrandbits per prime, x = randrange(1, N) until a unit; repeats drawn
//      again, 10,000 attempts at most);
//   3. per bits, per OOD T: `ood_examples_per_setting` unique prompts (split "ood");
//   4. the seen-N depth cohort: exhaustive, every unit x whose (N, x) no record used (ascending);
//      else per bits rng.sample of the training moduli, then pairs drawn by rng.choices weighted
//      by phi and a unit x, fresh in (N, x); the cohort is written once per rung (depth_t_T);
//   5. the OOD-N cohort: per unseen bits, fresh factors and x whose N no record used and whose
//      (N, x) is new; written once per rung (depth_ood_n_t_T).
// Primality is exact for 64-bit integers on both sides (the benchmark's Miller-Rabin bases are
// deterministic below 2^64), so isPrime decides the same. The other split groups ("x", "modulus")
// and factor congruences are not used by any tier and are refused.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/squaring/reference_config.h"

namespace deepladder::squaring {

enum class ReferenceSplit { kTrain, kTest, kOod, kDepth, kDepthOodN };

// One record of the benchmark's files; its index is its position in the generated list.
struct ReferenceRecord {
  uint64_t p = 0, q = 0;  // the factors as drawn (or recovered by trial division, smaller first)
  uint64_t modulus = 0;
  uint64_t x = 0;
  int64_t time_steps = 0;
  uint64_t result = 0;      // x^(2^T) mod N
  int configured_bits = 0;  // configured_modulus_bits; 0 is None (a fixed modulus)
  ReferenceSplit split = ReferenceSplit::kTrain;
};

// "train", "test", "ood", "depth_t_{T}", "depth_ood_n_t_{T}".
std::string referenceSplitName(const ReferenceRecord& record);

// Every record, in the benchmark's order. Throws UserError for a config this port does not cover
// and where the benchmark raises ValueError (e.g. 10,000 failed attempts: M1 with seed 2^32).
std::vector<ReferenceRecord> generateReferenceRecords(const ReferenceConfig& config);

// The benchmark's compute_split_counts for the (train, test) fractions: floors of total x
// fraction, the remainder handed out by descending (fraction part, fraction), then every
// positive split given at least one.
std::vector<int64_t> splitCounts(int64_t total, const std::vector<double>& fractions);

}  // namespace deepladder::squaring
