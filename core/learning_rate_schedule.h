// A run's learning rate at every update, from its config alone, for code that must not link
// LibTorch (the curve predictions of fitting/loss_curve_law.h, the sweep halving). It mirrors the
// worker's schedule step for step: trainers/lr_schedule.h (cosine, or the growth paper's WSD of
// trainers/wsd_schedule.h) times the growth re-warm of trainers/growth.h, times lr x lr_mult.
// tests/core/learning_rate_schedule_test.cpp pins the shapes; tests/trainers compare the two when
// both are built.
//
// What it does not do: the per-group rates (embedding, head, depth scaling): every group shares
// the same multiplier, so the matrix rate stands for all of them.
#pragma once

#include <cstdint>
#include <vector>

#include "core/run_config.h"

namespace deepladder {

// The multiplier of update `step` (0-based, 0 .. steps-1) of the cosine or WSD schedule, without
// the growth re-warm: trainers::scheduleMultiplier's formula.
double scheduleMultiplierAt(const TrainConfig& train, int64_t step);

// The growth re-warm of update `step`: 1 without growth, before the crossover c and from
// c + rewarm_steps on; (step - c) / rewarm_steps in between (0 at c itself).
double rewarmMultiplierAt(const ModelConfig& model, int64_t total_steps, int64_t step);

// Rate of every update 0 .. steps-1: lr x lr_mult x schedule x re-warm (the matrix rate the
// worker logs as "lr").
std::vector<double> learningRates(const RunConfig& config);

}  // namespace deepladder
