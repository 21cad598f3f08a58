// Logit-lens computational depth from a KL profile (entry l = block l, 0 = embedding):
//   l* = argmax_l KL(p || q_l)   (the first maximum when several blocks tie)
//   d_lens = min { l > l* : KL_l <= eps }, or none when no later block gets that close.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace deepladder {

// A run's KL profile at one eval step, as the lens table stores it (a NaN where a block has no
// row).
struct LensProfile {
  int64_t step = 0;
  std::vector<double> kl;  // kl[block], block 0 = embedding
};

struct LensDepth {
  int64_t peak_block = -1;       // l*
  std::optional<int64_t> depth;  // d_lens
};

LensDepth lensDepth(const std::vector<double>& kl, double eps = 2.0);

}  // namespace deepladder
