// A ladder as the database knows it, for what comes next (suggest, adaptive runs): its spec,
// planned again from the stored TOML, and the runs it holds (arm, size, seed, status). The one
// place that re-plans a stored ladder for candidates; when the plan is stored typed, only this
// changes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ladder/candidates.h"
#include "core/ladder/ladder_spec.h"
#include "storage/database.h"

namespace deepladder::storage {

struct LadderState {
  int64_t id = 0;
  std::string name;
  ladder::LadderSpec spec;
  std::vector<ladder::ExistingRun> runs;
  double planned_flops = 0;  // planned training FLOPs of every run (what a failed or cancelled
                             // run trained before it stopped)
  int active_runs = 0;       // queued, interrupted or running
};

// Throws UserError when the ladder does not exist or its stored spec no longer plans.
LadderState loadLadderState(Database& db, const std::string& name_or_hash);
LadderState loadLadderState(Database& db, int64_t ladder_id);

}  // namespace deepladder::storage
