// The serial task's positive-control tiers and their data (see control_tiers.h).
#include "core/squaring/control_tiers.h"

#include "core/errors.h"
#include "core/squaring/modular_arithmetic.h"
#include "core/squaring/random.h"
#include "core/squaring/semiprime.h"

namespace deepladder::squaring {

namespace {

std::vector<TierPreset> buildControls() {
  TierPreset c1;
  c1.name = "C1";
  c1.difficulty = "control";
  c1.budget = "a few CPU minutes (deepladder's positive control, not a benchmark tier)";
  c1.fixed_p = 3;
  c1.fixed_q = 59;
  c1.modulus_bits = {bitLength(c1.fixedN())};
  c1.train_t = {1, 2, 3, 4};
  c1.ood_t = 8;
  c1.depth_ladder = depthLadder(64);
  c1.train_fraction = 0.8;
  c1.test_fraction = 0.2;
  c1.examples_per_setting = static_cast<int64_t>((c1.fixed_p - 1) * (c1.fixed_q - 1));
  c1.ood_examples_per_setting = c1.examples_per_setting;
  c1.depth_exhaustive_x = true;
  c1.ood_n_examples_per_setting = 0;
  return {c1};
}

// Stream ids of the per-T train/test draws.
constexpr uint64_t kControlSplitStream = 0xC0;

}  // namespace

const std::vector<TierPreset>& controlTierPresets() {
  static const std::vector<TierPreset> presets = buildControls();
  return presets;
}

bool isControlTier(const TierPreset& tier) {
  return tier.difficulty == "control";
}

std::vector<std::string> allTierNames() {
  std::vector<std::string> names = tierNames();
  for (const auto& t : controlTierPresets()) names.push_back(t.name);
  return names;
}

TierDataset generateControlDataset(const TierPreset& tier, uint64_t seed) {
  if (!isControlTier(tier))
    throw UserError("tier " + tier.name + " is a benchmark tier, not a positive control");
  const Semiprime s = semiprimeFromFactors(tier.fixed_p, tier.fixed_q);
  TierDataset data;
  data.tier = tier.name;
  data.seed = seed;
  for (int64_t t : tier.train_t) {
    std::vector<Example> units = allUnitExamples(s, t);
    if (t == 1) {  // the whole single-squaring table: every step the loop needs is observed
      data.train.insert(data.train.end(), units.begin(), units.end());
      continue;
    }
    Rng rng(seed, kControlSplitStream + static_cast<uint64_t>(t));
    for (size_t i = units.size(); i > 1; --i) std::swap(units[i - 1], units[rng.below(i)]);
    const size_t train =
        static_cast<size_t>(tier.train_fraction * static_cast<double>(units.size()));
    data.train.insert(data.train.end(), units.begin(), units.begin() + train);
    data.test.insert(data.test.end(), units.begin() + train, units.end());
  }
  data.ood_t = allUnitExamples(s, tier.ood_t);
  for (int64_t t : tier.depth_ladder) {
    const auto rung = allUnitExamples(s, t);
    data.depth_seen.insert(data.depth_seen.end(), rung.begin(), rung.end());
  }
  return data;
}

}  // namespace deepladder::squaring
