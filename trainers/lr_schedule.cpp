// Learning-rate schedules (see lr_schedule.h).
#include "trainers/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace deepladder::trainers {

double learningRate(const TrainConfig& t, int64_t step) {
  const double peak = t.lr;
  const double floor = t.min_lr_ratio * t.lr;
  const int64_t last = t.steps - 1;
  if (step < t.warmup_steps)
    return peak * static_cast<double>(step + 1) / static_cast<double>(t.warmup_steps);
  if (t.schedule == Schedule::wsd) {
    const int64_t decay_steps = static_cast<int64_t>(std::llround(t.decay_fraction * t.steps));
    const int64_t decay_start = std::max(t.warmup_steps, t.steps - decay_steps);
    if (decay_steps <= 0 || step < decay_start) return peak;
    const double progress = std::min(1.0, static_cast<double>(step - decay_start + 1) /
                                              static_cast<double>(last - decay_start + 1));
    return peak + (floor - peak) * progress;
  }
  // cosine
  const int64_t span = last - t.warmup_steps;
  if (span <= 0) return peak;
  const double progress =
      std::clamp(static_cast<double>(step - t.warmup_steps) / static_cast<double>(span), 0.0, 1.0);
  return floor + (peak - floor) * 0.5 * (1.0 + std::cos(M_PI * progress));
}

}  // namespace deepladder::trainers
