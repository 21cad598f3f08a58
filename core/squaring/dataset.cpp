// Tier datasets from the benchmark's records (see dataset.h).
#include "core/squaring/dataset.h"

#include "core/squaring/control_tiers.h"
#include "core/squaring/reference_generator.h"

namespace deepladder::squaring {

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

TierDataset generateTierDataset(const TierPreset& tier, uint64_t seed) {
  if (isControlTier(tier)) return generateControlDataset(tier, seed);
  TierDataset data;
  data.tier = tier.name;
  data.seed = seed;
  for (const ReferenceRecord& r : generateReferenceRecords(referenceConfig(tier, seed, ""))) {
    const Example e{r.modulus, r.x, r.result, r.time_steps};
    switch (r.split) {
      case ReferenceSplit::kTrain:
        data.train.push_back(e);
        break;
      case ReferenceSplit::kTest:
        data.test.push_back(e);
        break;
      case ReferenceSplit::kOod:
        data.ood_t.push_back(e);
        break;
      case ReferenceSplit::kDepth:
        data.depth_seen.push_back(e);
        break;
      case ReferenceSplit::kDepthOodN:
        data.depth_ood_n.push_back(e);
        break;
    }
  }
  return data;
}

}  // namespace deepladder::squaring
