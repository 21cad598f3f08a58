// Measured compute multipliers (see multipliers.h).
#include "fitting/multipliers.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace deepladder::fitting {

std::vector<ComputeLoss> rungsOf(const std::vector<RunPoint>& points) {
  std::map<double, std::pair<double, int>> sums;  // compute -> (sum of losses, count)
  for (const auto& p : points) {
    auto& s = sums[p.compute_flops];
    s.first += p.val_loss;
    s.second += 1;
  }
  std::vector<ComputeLoss> rungs;
  for (const auto& [compute, s] : sums) rungs.push_back({compute, s.first / s.second});
  return rungs;
}

std::vector<MeasuredMultiplier> measuredMultipliers(const std::vector<ComputeLoss>& baseline,
                                                    const std::vector<ComputeLoss>& arm) {
  std::vector<MeasuredMultiplier> out;
  for (const auto& rung : baseline) {
    for (size_t i = 0; i + 1 < arm.size(); ++i) {
      const double l0 = arm[i].loss, l1 = arm[i + 1].loss;
      const bool brackets = (rung.loss - l0) * (rung.loss - l1) <= 0.0 && l0 != l1;
      if (!brackets) continue;
      // ln C_a = ln C_i + t (ln C_{i+1} - ln C_i), t = (L_b - L_i) / (L_{i+1} - L_i)
      const double t = (rung.loss - l0) / (l1 - l0);
      const double log_ca =
          std::log(arm[i].compute) + t * (std::log(arm[i + 1].compute) - std::log(arm[i].compute));
      out.push_back({rung.compute, rung.compute / std::exp(log_ca)});
      break;
    }
  }
  return out;
}

}  // namespace deepladder::fitting
