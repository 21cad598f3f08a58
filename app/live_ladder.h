// Wiring of a ladder's live projection for `run`, `watch` and adaptive runs: the fits table as
// the cache, the ladder's finished runs (final losses only) as the input, a LiveProjection in
// between. onRunFinished() is the one place the CLI reacts to a finished run; the scheduler's
// typed progress events can call it as they are. Each run that finished since the last look is
// scored against the projection made before it (fitting/live_score.h: the live projection's fit
// of the runs that had finished until then), and the score is stored in the ladder's error log
// (storage: projection_scores). The reading, the cache and the scores' storage are the fit
// session's (fitting/session/fit_session.h), the same pipeline `fit` and the workbench use.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fitting/fit_types.h"
#include "fitting/live_projection.h"
#include "fitting/live_score.h"
#include "fitting/session/fit_session.h"
#include "storage/database.h"

namespace deepladder::app {

class LiveLadder {
 public:
  LiveLadder(storage::Database& db, int64_t ladder_id, const std::string& name,
             const fitting::FrontierOptions& options, double target);

  // A run of the ladder ended: re-reads the finished runs, scores those that finished since the
  // last look (runs finished before this LiveLadder was made are not scored) against the fit
  // before each, and refits the shares whose points changed (the cache drops the stale ones by
  // itself). Also the first look at a ladder.
  fitting::ProjectionSnapshot onRunFinished();

  // The scores of the last onRunFinished(), in the order the runs finished (stored already).
  const std::vector<fitting::LiveScore>& lastScores() const { return scores_; }

  const fitting::LiveProjection& projection() const { return projection_; }

 private:
  session::FitSession session_;  // the ladder's data, its fits cache and its prediction log
  fitting::LiveProjection projection_;
  fitting::LadderFitter before_fitter_;  // fits a prefix the projection did not hold in memory
  std::set<int64_t> seen_;               // runs finished at the last look
  std::vector<fitting::LiveScore> scores_;
};

// The default target: the largest of the --at list (1e26 with the default list).
double defaultTarget(const fitting::FrontierOptions& options);

using fitting::kLiveBootstrap;  // the live projection's resamples (fitting/fit_types.h)

}  // namespace deepladder::app
