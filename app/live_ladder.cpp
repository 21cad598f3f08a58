// A ladder's live projection (see live_ladder.h).
#include "app/live_ladder.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include "core/errors.h"
#include "fitting/fit_types.h"
#include "storage/result_points.h"

namespace deepladder::app {

LiveLadder::LiveLadder(storage::Database& db, int64_t ladder_id, const std::string& name,
                       const fitting::FrontierOptions& options, double target)
    : db_(db),
      ladder_id_(ladder_id),
      label_(db.path() + " (ladder " + name + ")"),
      cache_(db, ladder_id),
      projection_(&cache_, name, options, target),
      before_fitter_(&cache_, name) {
  for (const auto& r : db.finishedRuns(ladder_id)) seen_.insert(r.id);
}

namespace {

storage::ProjectionScoreRecord scoreRecord(int64_t ladder_id, const fitting::LiveScore& s) {
  storage::ProjectionScoreRecord r;
  r.ladder_id = ladder_id;
  r.run_id = s.run_id;
  r.created = static_cast<double>(std::time(nullptr));
  r.arm = s.arm;
  r.size = s.size;
  r.compute = s.compute;
  r.measured_loss = s.measured_loss;
  r.predicted_loss = s.predicted_loss;
  if (std::isfinite(s.lo) && std::isfinite(s.hi)) r.lo = s.lo, r.hi = s.hi;
  r.rel_error = s.rel_error;
  if (std::isfinite(s.extrapolation)) r.extrapolation = s.extrapolation;
  r.fitted_runs = s.fitted_runs;
  return r;
}

}  // namespace

fitting::ProjectionSnapshot LiveLadder::onRunFinished() {
  const ResultsTable table = storage::ladderResults(db_, ladder_id_, label_);
  // Score every run that finished since the last look against the fit of the runs that had
  // finished before it: the projection's own fit when that is the prefix it last saw.
  scores_.clear();
  for (size_t i = 0; i < table.points.size(); ++i) {
    const RunPoint& run = table.points[i];
    if (seen_.count(run.run_id)) continue;
    ResultsTable before{table.source, {table.points.begin(), table.points.begin() + i}};
    bool is_last_seen = before.points.size() == seen_.size() && projection_.hasFit();
    for (const auto& p : before.points) is_last_seen = is_last_seen && seen_.count(p.run_id);
    try {
      const fitting::FrontierResult fit =
          is_last_seen ? projection_.fit()
                       : before_fitter_.fit(before, projection_.options(), /*lenient=*/true);
      if (auto score = fitting::scoreAgainstFitBefore(fit, before, run)) {
        db_.saveProjectionScore(scoreRecord(ladder_id_, *score));
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
