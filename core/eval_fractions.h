// train.eval_at: the fractions of a run after which the LM trainer also validates (without the
// logit lens), so that a curve prediction made at that fraction reads the run's validation loss
// there (the quantity it predicts, on the same fixed batches) instead of the noisy train loss.
// Parsed in core so a ladder is checked before a run is queued; the trainer asks evalAtStep.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace deepladder {

// Parses "0.25,0.5,0.75" (spaces allowed; "" = none): every entry a number with 0 < f < 1.
// Sorted, without repeats. Throws UserError naming train.eval_at and the entry.
std::vector<double> parseEvalFractions(const std::string& text);

// The step after which fraction f of a `steps`-step run is done: floor(f x steps), at least 1
// (so a prediction cut at f, which keeps the points at or before f x steps, holds it).
int64_t evalFractionStep(double fraction, int64_t steps);

// True when `step` is the eval step of one of `fractions` (evalFractionStep) in a run of `steps`.
bool evalAtStep(const std::vector<double>& fractions, int64_t step, int64_t steps);

}  // namespace deepladder
