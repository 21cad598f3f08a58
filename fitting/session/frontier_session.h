// A whole Frontier fit in one call, for a view that starts it on a worker thread and shows its
// result (the workbench's Frontier view): a FitSession (fit_session.h) on the database, the fit of
// the points with `fit`'s options (so the view's table is the one `deepladder fit` prints for the
// same choices), the backtest, the projection history and the live prediction log of a ladder,
// and how far the ladder has come. In the middle of a ladder the fit is lenient: the arms that
// can be fitted are, the rest are listed with what they still miss, and when even the baseline
// cannot be fitted yet the points, the progress and the reason still come back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fitting/backtest.h"
#include "fitting/fit_types.h"
#include "fitting/ladder_fit.h"
#include "fitting/live_projection.h"
#include "fitting/live_score.h"
#include "fitting/session/fit_session.h"
#include "fitting/session/ladder_progress.h"

namespace deepladder::session {

struct FrontierSessionRequest {
  std::string db_path;
  std::string source;  // a ladder (name or hash) or an imported source
  // `fit`'s options (baseline, C0, estimator, bootstrap, seed, --at); "" baseline: the ladder's
  // declared one (ladder_progress.h).
  fitting::FrontierOptions options = fitting::defaultFrontierOptions();
  int backtest_rungs = 3;  // the backtest holds out each arm's top 1..k rungs (0: none)
  double target = fitting::kDefaultTarget;  // compute of the projection history
  bool history = true;                      // replay the projection history (ladders only)
};

struct FrontierSessionResult {
  fitting::ResultsTable table;                 // every measured point
  std::optional<fitting::FrontierResult> fit;  // none when not even the baseline could be fitted
  std::string no_fit;                          // why there is no fit ("" when there is one)
  std::vector<fitting::SkippedArm> skipped;    // arms the fit left out, and why
  std::string baseline;                        // the baseline the fit used (or would have)
  fitting::BacktestResult backtest;            // empty without a fit
  std::vector<fitting::ProjectionSnapshot> history;
  std::vector<fitting::LiveScore> prediction_log;
  LadderProgress progress;  // empty for an imported source
  bool read_only = false;   // the database allowed no writing
};

// Runs the session (its own connection: call it on any thread; the fit stops early when
// request.options.cancellation is cancelled). UserError when the source holds no point at all.
FrontierSessionResult runFrontierSession(const FrontierSessionRequest& request);

// What the arms still miss in the middle of a ladder, one line each ("vanilla: 0 of 5 rungs
// finished"): the arms without a fit (for a source without a plan, the fit's reason for leaving
// them out), and the fitted arms whose rungs are not all in yet.
struct ProgressNotes {
  std::vector<std::string> not_fitted;
  std::vector<std::string> partly_finished;
};
ProgressNotes progressNotes(const FrontierSessionResult& result);

// Why there is no fit, in words for a status line: the baseline's progress when the ladder has a
// plan ("the baseline, vanilla, has 0 of 5 rungs finished"), else the fit's reason without the
// source's label.
std::string noFitReason(const FrontierSessionResult& result);

}  // namespace deepladder::session
