// Per-op breakdown of a training step, for tests/bench/trainer_bench.cpp: runs a step function
// under LibTorch's CPU profiler and splits the step's wall time into the categories the model
// marks with RECORD_FUNCTION scopes named "deepladder::<category>" (linear, attention, rotary,
// rms_norm, mlp_act, cross_entropy, ...). Backward work is charged to the category whose forward
// op created its autograd node (the profiler's sequence numbers); the bench's own scopes
// "deepladder::optimizer" and "deepladder::backward" bound the optimizer and the backward pass.
#pragma once

#include <functional>
#include <map>
#include <string>

namespace deepladder::bench {

struct OpBreakdown {
  double step_us = 0;                    // mean wall time of one step
  std::map<std::string, double> fwd_us;  // category -> mean forward microseconds per step
  std::map<std::string, double> bwd_us;  // category -> mean backward microseconds per step
};

// Runs `step` `steps` times under the profiler (after the caller's warm-up).
OpBreakdown profileSteps(const std::function<void()>& step, int steps);

// One line per category: forward, backward and total share of the step.
void printBreakdown(const char* label, const OpBreakdown& breakdown);

}  // namespace deepladder::bench
