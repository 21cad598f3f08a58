// Per-step health of a looped squaring model, so that explosion or collapse of the state shows
// in the run's curves: for step k (LoopTrace::states, h_k of shape (B,L,C)) over the real
// positions (LoopTrace::mask) of every batch added,
//   norm_k  = mean ||h_k||_2                 (over the channel dimension, per position)
//   delta_k = mean ||h_k - h_{k-1}||_2       (k >= 2)
// reported as metrics "<prefix>_norm@k=K" and "<prefix>_delta@k=K", e.g. loop/state_norm@k=3.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "trainers/squaring/squaring_model.h"

namespace deepladder::trainers::squaring {

class LoopStats {
 public:
  void add(const LoopTrace& trace);
  bool empty() const { return norm_.empty(); }
  // Metrics for the steps in `steps` (all steps seen when empty), ascending k.
  std::vector<std::pair<std::string, double>> metrics(const std::string& prefix,
                                                      const std::vector<int64_t>& steps = {}) const;
  double norm(int64_t k) const;   // NaN when step k was never seen
  double delta(int64_t k) const;  // NaN when step k (k >= 2) was never seen

 private:
  std::map<int64_t, std::pair<double, double>> norm_;   // k -> (sum, positions)
  std::map<int64_t, std::pair<double, double>> delta_;  // k -> (sum, positions)
};

}  // namespace deepladder::trainers::squaring
