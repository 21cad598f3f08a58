// Training-time iteration counts of a looped core, one per batch (SquaringConfig::iterations):
//   "fixed":             r = model.passes every batch;
//   "poisson_lognormal": lambda ~ LogNormal(log(mean_iterations - 1), iteration_sigma),
//                        r = 1 + Poisson(lambda), capped at maxIterations() = ceil(4 mean)
//                        (so E[r] ~ 1 + (mean - 1) exp(sigma^2 / 2) and the median ~ mean).
// The draw of batch i depends only on (seed, i), so a resumed run continues the same sequence
// after seek(i). And the test-time iteration list of SquaringConfig::eval_passes ("1..16",
// "1,2,4,8", "3"). Deterministic from a seed; no LibTorch.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/run_config.h"
#include "core/squaring/eval_passes.h"

namespace deepladder::trainers::squaring {

class IterationSampler {
 public:
  IterationSampler(const SquaringConfig& config, int64_t fixed_passes, uint64_t seed);
  int64_t next();                                 // the draw for batch position(), then advances
  int64_t position() const { return position_; }  // draws made so far
  void seek(int64_t position) { position_ = position; }
  int64_t maxIterations() const { return max_iterations_; }
  bool random() const { return random_; }

 private:
  bool random_ = false;
  int64_t fixed_ = 1;
  double log_mean_ = 0;
  double sigma_ = 0;
  int64_t max_iterations_ = 1;
  uint64_t seed_ = 0;
  int64_t position_ = 0;
};

using deepladder::squaring::parseEvalPasses;  // core/squaring/eval_passes.h

}  // namespace deepladder::trainers::squaring
