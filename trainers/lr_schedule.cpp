// Learning-rate schedules (see lr_schedule.h).
#include "trainers/lr_schedule.h"

#include <algorithm>
#include <cmath>

#include "trainers/wsd_schedule.h"

namespace deepladder::trainers {

double learningRate(const TrainConfig& t, int64_t step) {
  const double peak = t.lr;
  const double floor = t.min_lr_ratio * t.lr;
  if (t.schedule == Schedule::wsd) {
    const WsdSchedule wsd{t.steps, std::min(t.warmup_steps, t.steps), t.decay_fraction,
                          t.min_lr_ratio};
    return peak * wsdMultiplier(wsd, std::clamp<int64_t>(step, 0, t.steps));
  }
  const int64_t last = t.steps - 1;
  if (step < t.warmup_steps)
    return peak * static_cast<double>(step + 1) / static_cast<double>(t.warmup_steps);
  // cosine
  const int64_t span = last - t.warmup_steps;
  if (span <= 0) return peak;
  const double progress =
      std::clamp(static_cast<double>(step - t.warmup_steps) / static_cast<double>(span), 0.0, 1.0);
  return floor + (peak - floor) * 0.5 * (1.0 + std::cos(M_PI * progress));
}

double scheduleMultiplier(const TrainConfig& train, int64_t step) {
  return train.lr > 0 ? learningRate(train, step) / train.lr : 0.0;
}

}  // namespace deepladder::trainers
