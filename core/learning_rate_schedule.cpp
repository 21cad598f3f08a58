// A run's learning rates from its config (see learning_rate_schedule.h).
#include "core/learning_rate_schedule.h"

#include <algorithm>
#include <cfenv>
#include <cmath>

#include "core/architecture.h"

namespace deepladder {
namespace {

// D = round(r_wd S), halves to even (Python's round(), as trainers/wsd_schedule.cpp).
int64_t wsdDecaySteps(int64_t total, double decay_fraction) {
  const int previous = std::fegetround();
  std::fesetround(FE_TONEAREST);
  const double rounded = std::nearbyint(decay_fraction * static_cast<double>(total));
  std::fesetround(previous);
  return std::clamp<int64_t>(static_cast<int64_t>(rounded), 0, total);
}

double wsdMultiplierAt(const TrainConfig& t, int64_t step) {
  const int64_t total = t.steps;
  const int64_t warmup = std::min(t.warmup_steps, t.steps);
  step = std::clamp<int64_t>(step, 0, total);
  if (step < warmup) return static_cast<double>(step + 1) / static_cast<double>(warmup);
  const int64_t decay = wsdDecaySteps(total, t.decay_fraction);
  if (decay == 0) return 1.0;
  const int64_t start = std::max(warmup, total - decay);
  if (step < start) return 1.0;
  const int64_t span = std::max<int64_t>(total - start, 1);
  const double progress =
      span == 1 ? 1.0
                : std::min(1.0, static_cast<double>(step - start) / static_cast<double>(span - 1));
  return 1.0 + (t.min_lr_ratio - 1.0) * progress;
}

}  // namespace

double scheduleMultiplierAt(const TrainConfig& t, int64_t step) {
  if (t.schedule == Schedule::wsd) return wsdMultiplierAt(t, step);
  if (step < t.warmup_steps)
    return static_cast<double>(step + 1) / static_cast<double>(t.warmup_steps);
  const int64_t span = t.steps - 1 - t.warmup_steps;
  if (span <= 0) return 1.0;
  const double progress =
      std::clamp(static_cast<double>(step - t.warmup_steps) / static_cast<double>(span), 0.0, 1.0);
  return t.min_lr_ratio + (1.0 - t.min_lr_ratio) * 0.5 * (1.0 + std::cos(M_PI * progress));
}

double rewarmMultiplierAt(const ModelConfig& model, int64_t total_steps, int64_t step) {
  const int64_t crossover = growthStep(model, total_steps);
  if (crossover < 0 || model.rewarm_steps <= 0 || step < crossover) return 1.0;
  return std::min(1.0,
                  static_cast<double>(step - crossover) / static_cast<double>(model.rewarm_steps));
}

std::vector<double> learningRates(const RunConfig& config) {
  const TrainConfig& t = config.train;
  std::vector<double> rates(static_cast<size_t>(std::max<int64_t>(t.steps, 0)));
  for (int64_t s = 0; s < t.steps; ++s)
    rates[static_cast<size_t>(s)] = t.lr * t.lr_mult * scheduleMultiplierAt(t, s) *
                                    rewarmMultiplierAt(config.model, t.steps, s);
  return rates;
}

}  // namespace deepladder
