// The curves the curve predictions read (fitting/curve_prediction.h), from a ladder's runs in the
// database: each run's train/loss (one batch a point) and val/loss (eval_batches a point) with
// the updates done when each was measured (a train loss logged at step s was measured before
// update s-1 was applied; a val loss at step s after s updates), its learning rates from its
// stored config (core/learning_rate_schedule.h) and its growth step. Finished runs carry their
// final loss; running, interrupted and stopped runs do not (they are the ones predicted). Runs
// that failed, diverged or were cancelled are left out. Shared wiring of `predict`, `status`
// and the ladder's sweep halving.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fitting/loss_curve_law.h"
#include "storage/database.h"

namespace deepladder::app {

struct LadderCurves {
  std::vector<fitting::RunCurve> curves;
  std::map<int64_t, storage::RunRecord> runs;  // by id: the runs behind the curves
};

// `arms`: only these arms' runs (null: every arm's).
LadderCurves readLadderCurves(storage::Database& db, int64_t ladder_id,
                              const std::set<std::string>* arms = nullptr);

}  // namespace deepladder::app
