// The benchmark's generation config (tilde-research/one-layer-deeper, data/squaring_mod.py's
// SquaringModGenerationConfig): its fields with their defaults, the values
// scripts/generate_datasets.sh gives them for each tier, and the checks the generator runs on
// them before drawing anything (core/squaring/reference_generator.h draws the records).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/squaring/tiers.h"

namespace deepladder::squaring {

// The benchmark's SquaringModGenerationConfig with its defaults (0 for a None factor).
struct ReferenceConfig {
  std::string output_dir;
  std::vector<int> modulus_bits{32};
  uint64_t fixed_p = 0;
  uint64_t fixed_q = 0;
  std::vector<int64_t> time_steps{16};
  std::optional<int64_t> fixed_time_steps;
  int64_t examples_per_setting = 100;
  uint64_t seed = 45;
  double train_fraction = 0.8;
  double test_fraction = 0.2;
  std::vector<int64_t> ood_time_steps;
  std::optional<int64_t> ood_examples_per_setting;
  std::string generator_family = "rsa_repeated_squaring";
  bool separate_input_output = false;
  std::string split_group = "prompt";
  bool separate_ood_splits = false;
  std::vector<int64_t> depth_evaluation_time_steps;
  std::optional<int64_t> depth_evaluation_examples_per_setting;
  bool depth_evaluation_exhaustive_x = false;
  std::vector<int> ood_n_depth_evaluation_modulus_bits;
  std::optional<int64_t> ood_n_depth_evaluation_examples_per_setting;

  bool fixedModulus() const { return fixed_p != 0; }
  int64_t effectiveOodExamples() const {
    return ood_examples_per_setting.value_or(examples_per_setting);
  }
  std::vector<int64_t> timeSettings() const {
    return fixed_time_steps ? std::vector<int64_t>{*fixed_time_steps} : time_steps;
  }
};

// The arguments scripts/generate_datasets.sh passes for `tier`, with this seed and output_dir
// (separate_input_output true, as there).
ReferenceConfig referenceConfig(const TierPreset& tier, uint64_t seed,
                                const std::string& output_dir);

// The parts of the benchmark's __post_init__ that the tiers can reach, plus what this port does
// not cover: throws UserError naming the field.
void checkReferenceConfig(const ReferenceConfig& config);

}  // namespace deepladder::squaring
