// Learning-rate schedules, a pure function of the config and the step (so a resumed run uses
// exactly the rates of an uninterrupted one).
//   cosine: linear warmup over warmup_steps to lr, then cosine to min_lr_ratio x lr at the last
//           step
//   wsd:    lr x the growth paper's warmup-stable-decay multiplier (trainers/wsd_schedule.h) with
//           the decay over the final decay_fraction of the steps ending at min_lr_ratio x lr at
//           the last step (the recipe's ladders set min_lr_ratio = 0: the paper's schedule)
#pragma once

#include <cstdint>

#include "core/run_config.h"

namespace deepladder::trainers {

// Rate for update number `step` (0-based: 0 is the first update, steps-1 the last).
double learningRate(const TrainConfig& train, int64_t step);
// learningRate / lr: the schedule as a multiplier of every group's base rate (0 when lr = 0).
double scheduleMultiplier(const TrainConfig& train, int64_t step);

}  // namespace deepladder::trainers
