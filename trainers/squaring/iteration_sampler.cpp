// Iteration counts per batch and the eval_passes list (see iteration_sampler.h).
#include "trainers/squaring/iteration_sampler.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/errors.h"

namespace deepladder::trainers::squaring {

IterationSampler::IterationSampler(const SquaringConfig& config, int64_t fixed_passes,
                                   uint64_t seed)
    : random_(config.iterations == IterationRule::poisson_lognormal),
      fixed_(std::max<int64_t>(1, fixed_passes)),
      sigma_(config.iteration_sigma),
      seed_(seed) {
  if (random_) {
    if (config.mean_iterations <= 1.0)
      throw UserError("squaring.mean_iterations = " + std::to_string(config.mean_iterations) +
                      " leaves no room for random iterations (r = 1 + Poisson). Use a mean > 1");
    log_mean_ = std::log(config.mean_iterations - 1.0);
    max_iterations_ = static_cast<int64_t>(std::ceil(4.0 * config.mean_iterations));
  } else {
    max_iterations_ = fixed_;
  }
}

int64_t IterationSampler::next() {
  const int64_t index = position_++;
  if (!random_) return fixed_;
  // A generator of its own per draw, seeded by (seed, index): draw i is the same whether or not
  // the run was interrupted before it.
  std::seed_seq seeds{static_cast<uint32_t>(seed_), static_cast<uint32_t>(seed_ >> 32),
                      static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32)};
  std::mt19937_64 rng(seeds);
  std::lognormal_distribution<double> rate(log_mean_, sigma_);
  std::poisson_distribution<int64_t> count(rate(rng));
  return std::min<int64_t>(max_iterations_, 1 + count(rng));
}

}  // namespace deepladder::trainers::squaring
