// The recipe's learning-rate multipliers, pure functions of the step so a resumed run uses exactly
// the rates of an uninterrupted one; the growth paper's schedule (its training script's
// get_lr_multiplier), step for step:
//   - WSD: linear warmup over W steps, flat, then a linear decay over the final D = round(r_wd S)
//     steps that reaches the final fraction (0 in the recipe) at the last update;
//   - the growth re-warm: min(1, (step - c) / rewarm) from the crossover step c on.
// Both multiply each group's base learning rate (all groups alike); the rate of an update is
// base_lr x wsdMultiplier(step) x growthRewarmMultiplier(step, c). Growth does not move the WSD
// line: the re-warm only scales it, so the update at c has rate 0 and update c + rewarm is back on
// the WSD line.
//
// Steps: `step` is the 0-based index of an update; a run of S steps makes updates 0 .. S-1. With
// start = max(W, S - D) (D halves rounded to even, as Python's round()):
//   step <  W:             (step + 1) / W        step 0 gets 1/W, step W-1 (end of warmup) 1
//   W <= step < start:     1
//   start <= step:         1 - (1 - final) (step - start) / (S - start - 1)
//                          1 at the decay start, `final` at the last update S-1 (and after it);
//                          a decay of one step (start = S-1) is `final` at once
//   D = 0:                 1 after the warmup, to the end
// So with r_wd = 1 (D = S, start = W) the rate warms up to 1 at step W-1, stays 1 at step W, and
// decays from there to 0 at step S-1.
// What it does not do: the matrix/embedding/head base rates and their depth scaling (the caller
// multiplies).
#pragma once

#include <cstdint>

namespace deepladder::trainers {

struct WsdSchedule {
  int64_t total_steps = 0;      // S, updates in the run (> 0)
  int64_t warmup_steps = 0;     // W (>= 0; 0 starts at the full rate)
  double decay_fraction = 0.0;  // r_wd in [0, 1]
  double final_fraction = 0.0;  // multiplier at the last update (the recipe decays to 0)
};

// D = round(r_wd S), rounding halves to even (Python's round()).
int64_t wsdDecaySteps(const WsdSchedule& schedule);
// The first decaying update, max(W, S - D); S when there is no decay.
int64_t wsdDecayStart(const WsdSchedule& schedule);

// Multiplier at `step` in [0, S] (see above). Throws deepladder::UserError for a schedule with
// S <= 0, W < 0, W > S, r_wd outside [0, 1] or a final fraction outside [0, 1], and
// std::out_of_range for a step outside [0, S].
double wsdMultiplier(const WsdSchedule& schedule, int64_t step);

// Growth re-warm: 1 before the crossover step c; min(1, (step - c) / rewarm_steps) from c on, so
// the update at c itself has rate 0 (the copied blocks and their zeroed state meet a zero step)
// and step c + rewarm_steps is back to the full rate. rewarm_steps is 40 in the recipe.
double growthRewarmMultiplier(int64_t step, int64_t crossover_step, int64_t rewarm_steps = 40);

}  // namespace deepladder::trainers
