// The growth paper's WSD learning-rate multiplier and the growth re-warm: see wsd_schedule.h.
#include "trainers/wsd_schedule.h"

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/errors.h"

namespace deepladder::trainers {
namespace {

void checkSchedule(const WsdSchedule& s) {
  const auto fail = [](const std::string& field, const std::string& problem) {
    throw UserError("wsd schedule: " + field + ": " + problem +
                    ". Fix the arm's schedule in the ladder file.");
  };
  if (s.total_steps <= 0) fail("steps", "must be positive, got " + std::to_string(s.total_steps));
  if (s.warmup_steps < 0 || s.warmup_steps > s.total_steps)
    fail("warmup_steps", "must be in [0, steps=" + std::to_string(s.total_steps) + "], got " +
                             std::to_string(s.warmup_steps));
  if (!(s.decay_fraction >= 0.0 && s.decay_fraction <= 1.0))
    fail("decay_fraction", "must be in [0, 1], got " + std::to_string(s.decay_fraction));
  if (!(s.final_fraction >= 0.0 && s.final_fraction <= 1.0))
    fail("min_lr_ratio", "must be in [0, 1], got " + std::to_string(s.final_fraction));
}

}  // namespace

int64_t wsdDecaySteps(const WsdSchedule& schedule) {
  checkSchedule(schedule);
  // nearbyint rounds in the current mode; set round-to-nearest-even for this call (Python's
  // round(), which the scripts use), in case a caller changed the mode.
  const int previous = std::fegetround();
  std::fesetround(FE_TONEAREST);
  const double rounded =
      std::nearbyint(schedule.decay_fraction * static_cast<double>(schedule.total_steps));
  std::fesetround(previous);
  return std::clamp<int64_t>(static_cast<int64_t>(rounded), 0, schedule.total_steps);
}

int64_t wsdDecayStart(const WsdSchedule& schedule) {
  const int64_t decay_steps = wsdDecaySteps(schedule);  // checks the schedule
  if (decay_steps == 0) return schedule.total_steps;
  return std::max(schedule.warmup_steps, schedule.total_steps - decay_steps);
}

double wsdMultiplier(const WsdSchedule& schedule, int64_t step) {
  const int64_t start = wsdDecayStart(schedule);  // checks the schedule
  const int64_t total = schedule.total_steps;
  if (step < 0 || step > total)
    throw std::out_of_range("wsdMultiplier: step " + std::to_string(step) + " outside [0, " +
                            std::to_string(total) + "]");
  if (step < schedule.warmup_steps)
    return static_cast<double>(step + 1) / static_cast<double>(schedule.warmup_steps);
  if (wsdDecaySteps(schedule) == 0 || step < start) return 1.0;
  const int64_t span = std::max<int64_t>(total - start, 1);  // updates start .. S-1
  const double progress =
      span == 1 ? 1.0
                : std::min(1.0, static_cast<double>(step - start) / static_cast<double>(span - 1));
  return 1.0 + (schedule.final_fraction - 1.0) * progress;
}

double growthRewarmMultiplier(int64_t step, int64_t crossover_step, int64_t rewarm_steps) {
  if (rewarm_steps <= 0)
    throw std::invalid_argument("growthRewarmMultiplier: rewarm_steps must be positive");
  if (step < crossover_step) return 1.0;
  return std::min(1.0,
                  static_cast<double>(step - crossover_step) / static_cast<double>(rewarm_steps));
}

}  // namespace deepladder::trainers
