// A ladder's live projection (see live_ladder.h).
#include "app/live_ladder.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "fitting/fit_types.h"

namespace deepladder::app {

LiveLadder::LiveLadder(storage::Database& db, int64_t ladder_id, const std::string& name,
                       const fitting::FrontierOptions& options, double target)
    : session_(db, ladder_id, name, /*read_only=*/false),
      projection_(session_.cache(), name, options, target),
      before_fitter_(session_.cache(), name) {
  for (const auto& r : db.finishedRuns(ladder_id)) seen_.insert(r.id);
}

fitting::ProjectionSnapshot LiveLadder::onRunFinished() {
  const ResultsTable table = session_.currentLadderRuns();
  // Score every run that finished since the last look against the fit of the runs that had
  // finished before it: the projection's own fit when that is the prefix it last saw.
  scores_.clear();
  for (size_t i = 0; i < table.points.size(); ++i) {
    const RunPoint& run = table.points[i];
    if (seen_.count(run.run_id)) continue;
    ResultsTable before{table.source, {table.points.begin(), table.points.begin() + i}, {}};
    bool is_last_seen = before.points.size() == seen_.size() && projection_.hasFit();
    for (const auto& p : before.points) is_last_seen = is_last_seen && seen_.count(p.run_id);
    try {
      const fitting::FrontierResult fit =
          is_last_seen ? projection_.fit()
                       : before_fitter_.fit(before, projection_.options(), /*lenient=*/true);
      if (auto score = fitting::scoreAgainstFitBefore(fit, before, run)) {
        session_.recordScore(*score);
        scores_.push_back(*score);
      }
    } catch (const UserError&) {
      // nothing could be fitted before this run: no prediction to score
    }
  }
  for (const auto& p : table.points) seen_.insert(p.run_id);
  fitting::ProjectionSnapshot snapshot = projection_.refresh(table);
  return snapshot;
}

double defaultTarget(const fitting::FrontierOptions& options) {
  return options.at.empty() ? fitting::kDefaultTarget
                            : *std::max_element(options.at.begin(), options.at.end());
}

}  // namespace deepladder::app
