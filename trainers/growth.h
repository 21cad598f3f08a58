// Model growth during training: at the crossover step c = growthStep(model, steps) the
// model grows once (GPTImpl::grow: untied cores copied, a tied core looped more, a vanilla stack
// repeated), the optimizer is rebuilt over the grown parameters keeping the moments of the old
// ones (new parameters start with zero moments), and from c on every learning rate is multiplied
// by the re-warm factor min(1, (step - c) / rewarm_steps), with step the 0-based update index of
// lr_schedule.h: the first update after growth (step c, c updates done) gets 0, step c + rewarm
// the full rate (the recipe's convention too, trainers/wsd_schedule.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/run_config.h"
#include "trainers/adamw.h"
#include "trainers/gpt.h"

namespace deepladder::trainers {

// Multiplier of the learning rate of update `step` (0-based) of a run of `total_steps`.
// 1 for models that do not grow, before the crossover, and once re-warmed.
double rewarmFactor(const ModelConfig& model, int64_t total_steps, int64_t step);

// Grows `model` and replaces `optimizer` by one over the grown parameters that inherits the old
// moments and step count. Returns the event detail ("K 2 -> 4", "layers 8 -> 12").
std::string growModelAndOptimizer(GPT& model, std::unique_ptr<AdamW>& optimizer,
                                  const AdamWOptions& options);

}  // namespace deepladder::trainers
