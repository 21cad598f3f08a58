// Learning-rate schedules, a pure function of the config and the step (so a resumed run uses
// exactly the rates of an uninterrupted one).
//   cosine: linear warmup over warmup_steps to lr, then cosine to min_lr_ratio x lr at the last
//   step wsd:    linear warmup, flat at lr, then a linear decay over the final decay_fraction of
//   the
//           steps to min_lr_ratio x lr at the last step (warmup-stable-decay, Hu et al. 2024)
#pragma once

#include <cstdint>

#include "core/run_config.h"

namespace deepladder::trainers {

// Rate for update number `step` (0-based: 0 is the first update, steps-1 the last).
double learningRate(const TrainConfig& train, int64_t step);

}  // namespace deepladder::trainers
