// Positive controls of the serial task: tiers with no counterpart in the benchmark, whose depth
// extrapolation is learnable, so that a recurrent recipe that reaches Max T 0 on the benchmark's
// tiers can be shown to extrapolate where the task allows it. A control is repeated squaring mod a
// small semiprime whose whole single-squaring table is in the training set: every unit x at T = 1,
// and 80% of the prompts at T = 2, 3, 4 (the rest are the test set). It is evaluated at T = 8 (the
// OOD T) and on the depth ladder T = 1, 2, 4, ..., 64 over every unit x, so rungs T >= 8 ask for
// more squarings than any training prompt holds; the modulus's squaring period is long (C1:
// N = 177 = 3 x 59, period 28 in T), so for 97% of x the answers at T = 8 and 16 are none of the
// answers at T <= 4. No unseen moduli: Max T on unseen moduli is 0 by construction.
// Data is deepladder's own (xoshiro, core/squaring/random.h), the same on every platform; the
// native file layout only (`squaring generate --tier C1`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/squaring/dataset.h"
#include "core/squaring/tiers.h"

namespace deepladder::squaring {

// The control presets (C1), difficulty "control".
const std::vector<TierPreset>& controlTierPresets();
bool isControlTier(const TierPreset& tier);

// The benchmark's tiers, then the controls: every name squaring.tier accepts.
std::vector<std::string> allTierNames();

// A control tier's data from `seed`: train (every unit at T = 1; 80% of the units, drawn per T,
// at each further training T), test (the other 20%), ood_t (every unit at the OOD T), depth_seen
// (every unit at every rung of the ladder), depth_ood_n empty. Throws UserError for a benchmark
// tier.
TierDataset generateControlDataset(const TierPreset& tier, uint64_t seed);

}  // namespace deepladder::squaring
