// A ladder's progress from its stored plan (see ladder_progress.h).
#include "fitting/session/ladder_progress.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/run_status.h"
#include "fitting/fit_types.h"
#include "storage/database.h"

namespace deepladder::session {

LadderProgress ladderProgress(storage::Database& db, int64_t ladder_id) {
  struct Tally {
    std::set<std::string> sizes, finished_sizes;
    int runs = 0, finished = 0;
  };
  std::vector<std::string> order;  // arms as the plan lists them
  std::map<std::string, Tally> tallies;
  for (const storage::RunSummary& s : db.listRuns(ladder_id)) {
    const storage::RunRecord& r = s.run;
    if (!tallies.count(r.arm)) order.push_back(r.arm);
    Tally& t = tallies[r.arm];
    t.sizes.insert(r.size);
    ++t.runs;
    if (r.status == RunStatus::kFinished && r.final_loss) {
      t.finished_sizes.insert(r.size);
      ++t.finished;
    }
  }
  LadderProgress progress;
  for (const auto& arm : order) {
    const Tally& t = tallies[arm];
    progress.arms.push_back({arm, static_cast<int>(t.sizes.size()),
                             static_cast<int>(t.finished_sizes.size()), t.runs, t.finished});
  }
  const std::string preferred = fitting::defaultFrontierOptions().baseline;
  if (tallies.count(preferred))
    progress.declared_baseline = preferred;
  else if (!order.empty())
    progress.declared_baseline = order.front();
  return progress;
}

std::string progressLine(const ArmProgress& a) {
  std::string line = a.arm + ": " + std::to_string(a.rungs_finished) + " of " +
                     std::to_string(a.rungs_planned) + " rungs finished";
  if (a.runs_planned != a.rungs_planned)
    line +=
        " (" + std::to_string(a.runs_finished) + " of " + std::to_string(a.runs_planned) + " runs)";
  return line;
}

const ArmProgress* findArm(const LadderProgress& progress, const std::string& arm) {
  const auto it = std::find_if(progress.arms.begin(), progress.arms.end(),
                               [&](const ArmProgress& a) { return a.arm == arm; });
  return it == progress.arms.end() ? nullptr : &*it;
}

}  // namespace deepladder::session
