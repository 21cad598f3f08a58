// How far a ladder has come, from its stored plan (the runs queued at enqueue, one row each, with
// their arm, size and status): per arm, how many of its rungs (sizes) and runs have finished, and
// the ladder's declared baseline. The Frontier view says from it what is still missing in the
// middle of a ladder ("vanilla: 0 of 5 rungs finished") instead of an error of the fit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace deepladder::storage {
class Database;
}

namespace deepladder::session {

struct ArmProgress {
  std::string arm;
  int rungs_planned = 0;   // distinct sizes the plan holds for the arm
  int rungs_finished = 0;  // of them, sizes with at least one finished run
  int runs_planned = 0;    // every run of the arm (sweep points and seeds included)
  int runs_finished = 0;
};

struct LadderProgress {
  // The arm the ladder's multipliers are measured against: the default --baseline ("vanilla")
  // when the plan holds that arm, else the first arm of the plan. "" for a source without a plan
  // (an imported one).
  std::string declared_baseline;
  std::vector<ArmProgress> arms;  // in the plan's order (the baseline's place kept)
};

// The ladder's progress (empty for a ladder without runs). Queries: call it off the GUI thread.
LadderProgress ladderProgress(storage::Database& db, int64_t ladder_id);

// "vanilla: 2 of 5 rungs finished (6 of 15 runs)"; the runs left out when each rung has one run.
std::string progressLine(const ArmProgress& arm);

// The arm's entry, or null when the plan has no such arm.
const ArmProgress* findArm(const LadderProgress& progress, const std::string& arm);

}  // namespace deepladder::session
