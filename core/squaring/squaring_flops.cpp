// FLOPs of the squaring trainer's steps (see squaring_flops.h).
#include "core/squaring/squaring_flops.h"

#include <algorithm>
#include <cmath>

#include "core/flop_model.h"
#include "core/squaring/loop_format.h"
#include "core/squaring/tiers.h"

namespace deepladder::squaring {

namespace {

double flopsPerTokenAtWhole(const ModelConfig& model, int64_t iterations) {
  ModelConfig m = model;
  if (m.arch == Arch::pcc) m.passes = iterations;
  return flopsPerToken(m);
}

bool looped(const ModelConfig& model) {
  return model.arch == Arch::pcc && model.core_mode == CoreMode::tied;
}

// The iterations of a training batch before any progressive loss, in expectation.
double expectedSampledIterations(const ModelConfig& model, const SquaringConfig& squaring) {
  const double fixed = model.arch == Arch::pcc ? static_cast<double>(model.passes) : 1.0;
  if (!looped(model) || squaring.iterations != IterationRule::poisson_lognormal) return fixed;
  const double mean = 1.0 + (squaring.mean_iterations - 1.0) *
                                std::exp(squaring.iteration_sigma * squaring.iteration_sigma / 2);
  return std::min(mean, std::ceil(4.0 * squaring.mean_iterations));
}

}  // namespace

double flopsPerTokenAtIterations(const ModelConfig& model, double iterations) {
  const auto whole = static_cast<int64_t>(std::floor(iterations));
  const double low = flopsPerTokenAtWhole(model, std::max<int64_t>(whole, 0));
  const double fraction = iterations - static_cast<double>(whole);
  if (fraction == 0) return low;
  return low + fraction * (flopsPerTokenAtWhole(model, whole + 1) - low);
}

double promptFlops(const ModelConfig& model, int64_t loop_row, int64_t iterations) {
  if (loop_row == 0)
    return static_cast<double>(model.seq_len) *
           flopsPerTokenAtWhole(model, model.arch == Arch::pcc ? iterations : model.passes);
  const int64_t steps = (iterations + model.passes - 1) / model.passes;
  return static_cast<double>(steps * loop_row) * flopsPerTokenAtWhole(model, model.passes);
}

double plannedSquaringStepFlops(const RunConfig& config) {
  const ModelConfig& model = config.model;
  const SquaringConfig& squaring = config.squaring;
  const auto rows = static_cast<double>(config.train.batch_size);
  if (squaring.iterations == IterationRule::per_t && looped(model)) {
    const TierPreset& tier = tierPreset(squaring.tier);
    const int64_t loop_row =
        squaring.reentry != Reentry::off ? loopRowLength(loopDigitWidth(tier)) : 0;
    double sum = 0;
    for (int64_t t : tier.train_t)
      sum += promptFlops(model, loop_row, std::max<int64_t>(1, model.passes * t));
    return rows * sum / static_cast<double>(tier.train_t.size());
  }
  double iterations = expectedSampledIterations(model, squaring);
  if (squaring.progressive_weight > 0) iterations += (3.0 * iterations + 1.0) / 4.0;
  return rows * static_cast<double>(model.seq_len) * flopsPerTokenAtIterations(model, iterations);
}

}  // namespace deepladder::squaring
