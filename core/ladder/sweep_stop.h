// Early stopping inside a sweep, as the ladder file asks for it in [sweep]:
//   stop = "halving"                    stop a sweep point whose predicted final loss cannot win
//                                       (fitting/sweep_halving.h); "none" (the default) runs every
//                                       point to its end
//   stop_fractions = [0.25, 0.5, 0.75]  the fractions of a run at which it is judged (default),
//                                       each in (0, 1), ascending
// Only the ladder's [sweep] takes them: an arm's [arms.NAME.sweep] is refused at the key.
// With halving, every LM run of the ladder also validates at the stop fractions (train.eval_at,
// core/eval_fractions.h): a point is judged from its validation loss there, on the fixed batches
// its final loss is measured on, not from the train loss's batch-to-batch noise.
#pragma once

#include <string>
#include <vector>

#include "core/toml_reader.h"

namespace deepladder::ladder {

struct SweepStop {
  bool halving = false;
  std::vector<double> fractions{0.25, 0.5, 0.75};
};

// Reads (and consumes) stop and stop_fractions of a [sweep] table; UserError at the key's line
// for an unknown policy, an empty list, a fraction outside (0, 1) or out of order, or fractions
// without halving.
SweepStop readSweepStop(TomlReader& sweep_table);

// The keys readSweepStop reads, which readSweep leaves alone.
bool isSweepStopKey(const std::string& key);

// train.eval_at with the stop fractions added (halving), or as it is (no halving).
std::string evalAtWithStopFractions(const std::string& eval_at, const SweepStop& stop);

// Refuses stop / stop_fractions in an arm's sweep table (they are the ladder's).
void refuseArmSweepStop(const TomlReader& arm_sweep_table);

}  // namespace deepladder::ladder
