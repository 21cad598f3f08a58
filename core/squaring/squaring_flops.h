// FLOPs of the squaring trainer's steps, one definition for the trainer (what a step cost, as it
// ran) and the planner (what a run will cost, in expectation over the training set's T values
// and the iteration sampler).
//
// A prompt's forward and backward pass at r core iterations costs
//   - without re-entry: its row of seq_len tokens through r core passes;
//   - re-entering: ceil(r / passes) steps of the loop row (2 W + 4 tokens), each through the
//     prelude, `passes` core passes and the coda.
// The planner's step is batch_size prompts at the expected cost:
//   - iterations = "per_t": r = passes x T, averaged over the tier's training T values (every
//     (bits, T) cell of the training split holds the same number of prompts);
//   - "fixed": r = passes; "poisson_lognormal": r = E[r] ~ 1 + (mean - 1) exp(sigma^2 / 2),
//     capped at ceil(4 mean), as the sampler draws it (the cap's effect on the mean is ignored);
//   - progressive loss: the extra n + k iterations, E[n + k] = (3 r + 1) / 4.
// FLOPs per token are affine in the number of core passes, so the expectation of a step's FLOPs
// is the FLOPs at the expected iteration count.
#pragma once

#include <cstdint>

#include "core/run_config.h"

namespace deepladder::squaring {

// FLOPs per token of a forward and backward pass through `iterations` core passes (the model's
// own depth when it is not looped). `iterations` may be fractional (an expectation).
double flopsPerTokenAtIterations(const ModelConfig& model, double iterations);

// One prompt's forward and backward FLOPs at r iterations. `loop_row` is the loop row's length
// for a re-entering model, 0 otherwise.
double promptFlops(const ModelConfig& model, int64_t loop_row, int64_t iterations);

// The expected FLOPs of one training step of a squaring run (batch_size prompts).
double plannedSquaringStepFlops(const RunConfig& config);

}  // namespace deepladder::squaring
