// A whole Frontier fit in one call (see frontier_session.h).
#include "fitting/session/frontier_session.h"

#include <set>

#include "core/errors.h"

namespace deepladder::session {

FrontierSessionResult runFrontierSession(const FrontierSessionRequest& request) {
  auto session = FitSession::open(request.db_path, request.source, DatabaseAccess::kWriteIfAllowed);
  FrontierSessionResult out;
  out.read_only = session->readOnly();
  out.progress = session->progress();
  // A ladder still running has no points yet: show its plan rather than fail.
  out.table = session->ladderId() ? session->currentLadderRuns() : session->table();
  fitting::FrontierOptions options = request.options;
  if (options.baseline.empty()) options.baseline = out.progress.declared_baseline;
  if (options.baseline.empty()) options.baseline = fitting::defaultFrontierOptions().baseline;
  out.baseline = options.baseline;
  out.prediction_log = session->predictionLog();
  if (out.table.points.empty()) {
    out.no_fit = "no run has finished yet";
    return out;
  }
  try {
    out.fit = session->fit(out.table, options, /*lenient=*/true);
    out.skipped = session->skipped();
  } catch (const UserError& e) {  // the baseline cannot be fitted yet: the points still show
    out.no_fit = e.what();
    return out;
  }
  if (request.backtest_rungs > 0) {
    // The arms the fit could fit; a ladder too young to hold any rung out has no backtest yet.
    std::set<std::string> fitted;
    for (const auto& f : out.fit->arms) fitted.insert(f.arm);
    fitting::ResultsTable backtested{out.table.source, {}, {}};
    for (const auto& p : out.table.points)
      if (fitted.count(p.arm)) backtested.points.push_back(p);
    try {
      out.backtest = FitSession::backtest(backtested, options, request.backtest_rungs);
    } catch (const UserError&) {
      out.backtest = {};
    }
  }
  if (request.history) out.history = session->history(out.table, options, request.target);
  return out;
}

ProgressNotes progressNotes(const FrontierSessionResult& result) {
  std::set<std::string> fitted;
  if (result.fit)
    for (const auto& f : result.fit->arms)
      if (f.no_fit.empty()) fitted.insert(f.arm);
  ProgressNotes notes;
  for (const ArmProgress& a : result.progress.arms) {
    if (!fitted.count(a.arm))
      notes.not_fitted.push_back(progressLine(a));
    else if (a.rungs_finished < a.rungs_planned)
      notes.partly_finished.push_back(progressLine(a));
  }
  if (result.progress.arms.empty())
    for (const auto& s : result.skipped) notes.not_fitted.push_back(s.arm + ": " + s.reason);
  return notes;
}

std::string noFitReason(const FrontierSessionResult& result) {
  if (const ArmProgress* base = findArm(result.progress, result.baseline))
    return "the baseline, " + base->arm + ", has " + std::to_string(base->rungs_finished) + " of " +
           std::to_string(base->rungs_planned) + " rungs finished";
  std::string why = result.no_fit;
  const std::string label = result.table.source + ": ";
  if (why.rfind(label, 0) == 0) why.erase(0, label.size());
  return why;
}

}  // namespace deepladder::session
