// The recipe's learning-rate multipliers (issue 9), pure functions of the step so a resumed run
// uses exactly the rates of an uninterrupted one:
//   - WSD: linear warmup over W steps, flat, then a linear decay to exactly zero over the final
//     fraction r_wd of the S steps;
//   - the growth re-warm: min(1, (step - c) / 40) from the crossover step c on.
// Both are multipliers of each group's base learning rate (all three groups alike); the rate of
// an update is base_lr x wsdMultiplier(step) x growthRewarmMultiplier(step, c).
//
// Steps: `step` is the 0-based index of an update; a run of S steps makes updates 0 .. S-1, and
// step S is the end of training (no update), where the WSD multiplier is exactly 0:
//   step <  W:            (step + 1) / W          step 0 gets 1/W (never a wasted zero step),
//                                                 step W-1 gets exactly 1
//   W <= step <= S - D:   1                       D = round(r_wd S), halves to even
//   step >  S - D:        (S - step) / D          linear; 1 at S - D, 1/D at the last update
//                                                 S-1, exactly 0 at S
// The warmup branch is tested first, so with r_wd = 1 (D = S) the rate ramps up over W steps and
// then follows the decay line (S - step)/S. This is the scripts' get_lr_multiplier with
// final_lr_frac 0.
// What it does not do: the matrix/embedding/head base rates and their depth scaling (the caller
// multiplies).
#pragma once

#include <cstdint>

namespace deepladder::trainers {

struct WsdSchedule {
  int64_t total_steps = 0;      // S, updates in the run (> 0)
  int64_t warmup_steps = 0;     // W (>= 0; 0 starts at the full rate)
  double decay_fraction = 0.0;  // r_wd in [0, 1]
};

// D = round(r_wd S), rounding halves to even (Python's round()).
int64_t wsdDecaySteps(const WsdSchedule& schedule);

// Multiplier at `step` in [0, S] (see above). Throws deepladder::UserError for a schedule with
// S <= 0, W < 0, W > S or r_wd outside [0, 1], and std::out_of_range for a step outside [0, S].
double wsdMultiplier(const WsdSchedule& schedule, int64_t step);

// Growth re-warm: 1 before the crossover step c; min(1, (step - c) / rewarm_steps) from c on, so
// the update at c itself has rate 0 (the copied cores and their zeroed state meet a zero step)
// and step c + rewarm_steps is back to the full rate. rewarm_steps is 40 in the recipe.
double growthRewarmMultiplier(int64_t step, int64_t crossover_step, int64_t rewarm_steps = 40);

}  // namespace deepladder::trainers
