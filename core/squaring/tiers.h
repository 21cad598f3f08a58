// Tier presets of the squaring task, named as in the "One Layer Deeper" competition: easy tiers
// E1-E5 (a 1-minute budget on one H100) and medium tiers M1-M5 (10 minutes). Each fixes the
// moduli (fixed p, q or a set of bit sizes), the in-distribution T values, one out-of-
// distribution (OOD) T, OOD moduli sizes for depth evaluation, the depth ladder
// T = 1, 2, 4, ..., 64 and the train/test fractions (0.8/0.2 easy, 0.9/0.1 medium).
//
// Dataset sizes are the benchmark's (scripts/generate_datasets.sh of tilde-research/one-layer-
// deeper), and the data is drawn by its generator's rules (reference_generator.h):
// - per (bits, T) cell `examples_per_setting` unique prompts, split train/test by the fractions
//   (E1: 250 per T, 200/50); `ood_examples_per_setting` prompts per bits at the OOD T;
// - the seen-moduli depth cohort, the same prompts at every rung of the ladder: for E1/E2 every x
//   never used in train, test or OOD (reserved before anything is drawn: E1 38 x), else
//   `depth_examples_per_setting` fresh (N, x) pairs per bits on training moduli;
// - the OOD-N depth cohort: `ood_n_examples_per_setting` (256) fresh (N, x) pairs per unseen
//   bits, the same pairs at every rung.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace deepladder::squaring {

struct TierPreset {
  std::string name;        // "E1" ... "M5"
  std::string difficulty;  // "easy" or "medium"
  std::string budget;      // "1 minute on one H100" / "10 minutes on one H100"
  uint64_t fixed_p = 0;    // fixed factors (both 0 when moduli are drawn by bit size)
  uint64_t fixed_q = 0;
  std::vector<int> modulus_bits;      // training sizes; for a fixed N, {bit_length(N)}
  std::vector<int64_t> train_t;       // in-distribution T values
  int64_t ood_t = 0;                  // out-of-distribution T (on training moduli)
  std::vector<int> ood_modulus_bits;  // unseen moduli sizes for depth evaluation
  std::vector<int64_t> depth_ladder;  // 1, 2, 4, ..., 64
  double train_fraction = 0.8;
  double test_fraction = 0.2;
  // The benchmark's generator arguments for this tier.
  bool single_t_flag = false;              // T given as --fixed_time_steps (one training T)
  int64_t examples_per_setting = 0;        // prompts per (bits, T) cell before the split
  int64_t ood_examples_per_setting = 0;    // prompts per bits at the OOD T
  bool depth_exhaustive_x = false;         // fixed N: the depth cohort is every unused x
  int64_t depth_examples_per_setting = 0;  // otherwise: seen-N depth pairs per bits
  int64_t ood_n_examples_per_setting = 256;

  bool fixedModulus() const { return fixed_p != 0; }
  uint64_t fixedN() const { return fixed_p * fixed_q; }
  int64_t maxT() const;  // over training T, OOD T and the ladder
  int maxBits() const;   // over training and OOD moduli
};

// All presets in order E1..E5, M1..M5.
const std::vector<TierPreset>& tierPresets();
std::vector<std::string> tierNames();
// Case-insensitive ("e1" works). Throws UserError listing the tiers when unknown.
const TierPreset& tierPreset(const std::string& name);

// The depth ladder 1, 2, 4, ..., max_t (powers of two).
std::vector<int64_t> depthLadder(int64_t max_t = 64);

// Number of distinct (N, x) prompts for one T among moduli of `bits` bits drawn as the generator
// does (sum of phi(N) over distinct N); exact for bits <= 26, else a huge sentinel (2^62;
// the true count there exceeds 10^12).
uint64_t distinctPromptsPerT(int bits);

}  // namespace deepladder::squaring
