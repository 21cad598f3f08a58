// d_lens from a KL profile (see lens_depth.h).
#include "core/lens_depth.h"

#include <cmath>

namespace deepladder {

LensDepth lensDepth(const std::vector<double>& kl, double eps) {
  LensDepth out;
  for (size_t l = 0; l < kl.size(); ++l)
    if (!std::isnan(kl[l]) &&
        (out.peak_block < 0 || kl[l] > kl[static_cast<size_t>(out.peak_block)]))
      out.peak_block = static_cast<int64_t>(l);
  if (out.peak_block < 0) return out;
  for (size_t l = static_cast<size_t>(out.peak_block) + 1; l < kl.size(); ++l)
    if (kl[l] <= eps) {
      out.depth = static_cast<int64_t>(l);
      break;
    }
  return out;
}

}  // namespace deepladder
