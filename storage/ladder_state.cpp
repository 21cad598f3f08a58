// A stored ladder's spec and runs (see ladder_state.h).
#include "storage/ladder_state.h"

#include <map>

#include "core/errors.h"
#include "core/run_status.h"
#include "storage/imported_ladder.h"

namespace deepladder::storage {

LadderState loadLadderState(Database& db, const std::string& name_or_hash) {
  const auto id = db.findLadder(name_or_hash);
  if (!id)
    throw UserError("no ladder \"" + name_or_hash + "\" in " + db.path() +
                    ". See `deepladder status --db " + db.path() + "`");
  return loadLadderState(db, *id);
}

LadderState loadLadderState(Database& db, int64_t ladder_id) {
  LadderState state;
  state.id = ladder_id;
  const std::string text = db.ladderSpec(ladder_id);
  if (text.empty()) throw UserError("ladder #" + std::to_string(ladder_id) + " does not exist");
  if (isImportedLadderSpec(text))
    throw UserError("ladder #" + std::to_string(ladder_id) +
                    " was imported (`deepladder import`): it has no grid to plan more runs from. "
                    "Write a ladder file for the rungs you want and run that");
  state.spec = ladder::parseLadder(text, "ladder #" + std::to_string(ladder_id) + " (stored)");
  std::map<std::string, double> planned;  // grid runs by name: the plan's FLOPs
  for (const auto& run : state.spec.runs) planned[run.name] = run.flops;
  for (const RunSummary& s : db.listRuns(ladder_id)) {
    const RunRecord& r = s.run;
    state.name = s.ladder_name;
    state.runs.push_back({r.arm, r.size, r.seed, r.status,
                          ladder::sweepLabelOfRunName(r.name, r.arm, r.size, r.seed)});
    if (isUnfinished(r.status)) ++state.active_runs;
    // What it trained before it stopped.
    if (isRetryable(r.status)) {
      state.planned_flops += r.flops;
      continue;
    }
    double flops = completedTraining(r.status) ? r.flops : 0.0;
    if (flops <= 0 && planned.count(r.name)) flops = planned.at(r.name);
    if (flops <= 0) flops = r.plan.flops;  // not run yet and not in the grid: its stored plan
    state.planned_flops += flops;
  }
  if (state.name.empty()) state.name = state.spec.name;
  return state;
}

}  // namespace deepladder::storage
