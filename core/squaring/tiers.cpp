// The squaring task's tier presets and prompt-space counts (see tiers.h).
#include "core/squaring/tiers.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <mutex>
#include <set>

#include "core/errors.h"
#include "core/squaring/control_tiers.h"
#include "core/squaring/modular_arithmetic.h"

namespace deepladder::squaring {

namespace {

TierPreset fixedTier(const char* name, uint64_t p, uint64_t q, std::vector<int64_t> train_t,
                     int64_t ood_t, std::vector<int> ood_bits) {
  TierPreset t;
  t.name = name;
  t.fixed_p = p;
  t.fixed_q = q;
  t.modulus_bits = {bitLength(p * q)};
  t.train_t = std::move(train_t);
  t.ood_t = ood_t;
  t.ood_modulus_bits = std::move(ood_bits);
  return t;
}

TierPreset sizedTier(const char* name, std::vector<int> bits, std::vector<int64_t> train_t,
                     int64_t ood_t, std::vector<int> ood_bits) {
  TierPreset t;
  t.name = name;
  t.modulus_bits = std::move(bits);
  t.train_t = std::move(train_t);
  t.ood_t = ood_t;
  t.ood_modulus_bits = std::move(ood_bits);
  return t;
}

// The benchmark's per-tier sizes: examples per (bits, T), OOD examples, depth cohort (0 =
// every unused x of the fixed N).
void setSizes(TierPreset& t, int64_t examples, int64_t ood_examples, int64_t depth_examples) {
  t.examples_per_setting = examples;
  t.ood_examples_per_setting = ood_examples;
  t.depth_exhaustive_x = depth_examples == 0;
  t.depth_examples_per_setting = depth_examples;
  t.ood_n_examples_per_setting = 256;
}

std::vector<TierPreset> buildPresets() {
  std::vector<TierPreset> tiers = {
      fixedTier("E1", 17, 19, {1, 2, 3}, 6, {10, 11}),
      fixedTier("E2", 29, 31, {1, 2, 4}, 7, {11, 12}),
      sizedTier("E3", {10, 11}, {2}, 4, {12, 13}),
      sizedTier("E4", {11, 12}, {2}, 4, {13, 14}),
      sizedTier("E5", {10, 11}, {1, 2, 3}, 6, {12, 13}),
      fixedTier("M1", 101, 103, {4, 8, 16}, 32, {15, 16}),
      fixedTier("M2", 193, 197, {4, 8, 16}, 32, {17, 18}),
      sizedTier("M3", {11, 13, 15}, {2}, 4, {12, 14, 16}),
      sizedTier("M4", {14, 18, 22}, {8}, 16, {16, 20, 24}),
      sizedTier("M5", {12, 14, 16}, {2, 4, 8}, 16, {13, 15, 18}),
  };
  const std::map<std::string, std::array<int64_t, 3>> sizes = {
      {"E1", {250, 100, 0}},      {"E2", {800, 300, 0}},     {"E3", {2000, 400, 256}},
      {"E4", {4000, 600, 256}},   {"E5", {1000, 300, 256}},  {"M1", {10000, 3000, 192}},
      {"M2", {30000, 5000, 768}}, {"M3", {8000, 1000, 256}}, {"M4", {30000, 3000, 256}},
      {"M5", {10000, 1000, 256}}};
  for (auto& t : tiers) {
    const bool easy = t.name[0] == 'E';
    t.difficulty = easy ? "easy" : "medium";
    t.budget = easy ? "1 minute on one H100" : "10 minutes on one H100";
    t.train_fraction = easy ? 0.8 : 0.9;
    t.test_fraction = easy ? 0.2 : 0.1;
    t.depth_ladder = depthLadder(64);
    const auto& s = sizes.at(t.name);
    setSizes(t, s[0], s[1], s[2]);
    // E3, E4, M3, M4 name their single T with --fixed_time_steps.
    t.single_t_flag = !t.fixedModulus() && t.train_t.size() == 1;
  }
  return tiers;
}

}  // namespace

int64_t TierPreset::maxT() const {
  int64_t m = ood_t;
  for (int64_t t : train_t) m = std::max(m, t);
  for (int64_t t : depth_ladder) m = std::max(m, t);
  return m;
}

int TierPreset::maxBits() const {
  int m = 0;
  for (int b : modulus_bits) m = std::max(m, b);
  for (int b : ood_modulus_bits) m = std::max(m, b);
  return m;
}

const std::vector<TierPreset>& tierPresets() {
  static const std::vector<TierPreset> presets = buildPresets();
  return presets;
}

std::vector<std::string> tierNames() {
  std::vector<std::string> names;
  for (const auto& t : tierPresets()) names.push_back(t.name);
  return names;
}

const TierPreset& tierPreset(const std::string& name) {
  std::string upper = name;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const auto& t : tierPresets())
    if (t.name == upper) return t;
  for (const auto& t : controlTierPresets())
    if (t.name == upper) return t;
  std::string list;
  for (const auto& n : allTierNames()) list += (list.empty() ? "" : ", ") + n;
  throw UserError("tier \"" + name + "\" is unknown. Use one of " + list);
}

std::vector<int64_t> depthLadder(int64_t max_t) {
  std::vector<int64_t> ladder;
  for (int64_t t = 1; t <= max_t; t *= 2) ladder.push_back(t);
  return ladder;
}

uint64_t distinctPromptsPerT(int bits) {
  constexpr uint64_t kHuge = uint64_t{1} << 62;
  if (bits > 26) return kHuge;
  static std::mutex mutex;
  static std::map<int, uint64_t> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(bits); it != cache.end()) return it->second;
  const int p_bits = bits / 2, q_bits = bits - p_bits;
  auto primesOfSize = [](int k) {
    std::vector<uint64_t> primes;
    for (uint64_t v = (uint64_t{1} << (k - 1)) | 1; v < (uint64_t{1} << k); v += 2)
      if (isPrimeFast(v)) primes.push_back(v);
    return primes;
  };
  const auto ps = primesOfSize(p_bits), qs = primesOfSize(q_bits);
  std::set<uint64_t> moduli;
  uint64_t total = 0;
  for (uint64_t p : ps)
    for (uint64_t q : qs) {
      if (p == q || bitLength(p * q) != bits) continue;
      if (moduli.insert(p * q).second) total += (p - 1) * (q - 1);
    }
  cache[bits] = total;
  return total;
}

}  // namespace deepladder::squaring
