// The benchmark's generation config per tier, and its checks (see reference_config.h).
#include "core/squaring/reference_config.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "core/squaring/modular_arithmetic.h"
#include "core/squaring/semiprime.h"

namespace deepladder::squaring {

ReferenceConfig referenceConfig(const TierPreset& tier, uint64_t seed,
                                const std::string& output_dir) {
  ReferenceConfig c;
  c.output_dir = output_dir;
  c.seed = seed;
  if (tier.fixedModulus()) {
    c.fixed_p = tier.fixed_p;
    c.fixed_q = tier.fixed_q;
  } else {
    c.modulus_bits = tier.modulus_bits;
  }
  if (tier.single_t_flag)
    c.fixed_time_steps = tier.train_t.front();
  else
    c.time_steps = tier.train_t;
  c.ood_time_steps = {tier.ood_t};
  c.examples_per_setting = tier.examples_per_setting;
  c.ood_examples_per_setting = tier.ood_examples_per_setting;
  c.depth_evaluation_time_steps = tier.depth_ladder;
  c.depth_evaluation_exhaustive_x = tier.depth_exhaustive_x;
  if (!tier.depth_exhaustive_x)
    c.depth_evaluation_examples_per_setting = tier.depth_examples_per_setting;
  c.ood_n_depth_evaluation_modulus_bits = tier.ood_modulus_bits;
  c.ood_n_depth_evaluation_examples_per_setting = tier.ood_n_examples_per_setting;
  c.train_fraction = tier.train_fraction;
  c.test_fraction = tier.test_fraction;
  c.split_group = "prompt";
  c.separate_input_output = true;
  return c;
}

void checkReferenceConfig(const ReferenceConfig& c) {
  auto refuse = [](const std::string& why) { throw UserError("reference generator: " + why); };
  if (c.split_group != "prompt" || c.separate_ood_splits)
    refuse("only split_group = \"prompt\" without separate OOD splits is covered");
  if (c.fixedModulus()) {
    if (c.fixed_p == c.fixed_q || !isPrime(c.fixed_p) || !isPrime(c.fixed_q))
      refuse("fixed_p and fixed_q must be distinct primes");
    const int64_t phi = static_cast<int64_t>((c.fixed_p - 1) * (c.fixed_q - 1));
    if (c.examples_per_setting > phi || c.effectiveOodExamples() > phi)
      refuse("examples per setting exceed the number of unique x values for the fixed modulus");
  } else {
    if (c.modulus_bits.empty()) refuse("modulus_bits is empty");
    for (int bits : c.modulus_bits) {
      if (bits < 4 || bits > kMaxModulusBits) refuse("modulus bits must lie in [4, 62]");
      // The benchmark checks the capacity where it can enumerate it (factors of <= 10 bits).
      if (bits - bits / 2 <= 10 &&
          static_cast<uint64_t>(std::max(c.examples_per_setting, c.effectiveOodExamples())) >
              distinctPromptsPerT(bits))
        refuse("examples per setting exceed the unique prompts of " + std::to_string(bits) +
               "-bit moduli");
    }
  }
  for (int bits : c.ood_n_depth_evaluation_modulus_bits)
    if (bits < 4 || bits > kMaxModulusBits) refuse("OOD-N modulus bits must lie in [4, 62]");
  if (c.examples_per_setting < 1) refuse("examples_per_setting must be positive");
  if (std::abs(c.train_fraction + c.test_fraction - 1.0) > 1e-9)
    refuse("train_fraction + test_fraction must equal 1");
  if (!c.depth_evaluation_time_steps.empty() && !c.depth_evaluation_exhaustive_x &&
      !c.depth_evaluation_examples_per_setting)
    refuse("depth_evaluation_examples_per_setting is required with depth_evaluation_time_steps");
  if (c.depth_evaluation_exhaustive_x && !c.fixedModulus())
    refuse("depth_evaluation_exhaustive_x requires fixed_p and fixed_q");
}

}  // namespace deepladder::squaring
