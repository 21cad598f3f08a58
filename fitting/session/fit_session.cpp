// The fit session (see fit_session.h).
#include "fitting/session/fit_session.h"

#include <unistd.h>

#include <cmath>
#include <ctime>
#include <stdexcept>
#include <utility>

#include "core/errors.h"
#include "fitting/frontier_fit.h"
#include "fitting/projection_history.h"
#include "fitting/results_csv.h"
#include "storage/database.h"
#include "storage/fit_cache.h"
#include "storage/result_points.h"

namespace deepladder::session {

std::unique_ptr<FitSession> FitSession::open(const std::string& db_path, const std::string& source,
                                             DatabaseAccess access) {
  if (::access(db_path.c_str(), F_OK) != 0)
    throw UserError(db_path + ": no such database. Check --db (or open an existing runs.db)");
  std::unique_ptr<FitSession> session(new FitSession);
  session->source_ = source;
  bool read_only = access == DatabaseAccess::kReadOnly;
  std::unique_ptr<storage::Database> db;
  if (access == DatabaseAccess::kWriteIfAllowed) {
    try {
      db = storage::Database::open(db_path, /*read_only=*/false);
    } catch (const std::exception&) {  // a file we may only read: reuse the cache, store nothing
      read_only = true;
    }
  }
  if (!db) db = storage::Database::open(db_path, read_only);
  session->owned_ = std::move(db);
  session->attach(*session->owned_, session->owned_->findLadder(source), read_only);
  return session;
}

std::unique_ptr<FitSession> FitSession::fromCsv(const std::string& csv_path) {
  std::unique_ptr<FitSession> session(new FitSession);
  session->source_ = csv_path;
  session->csv_path_ = csv_path;
  session->fitter_ = std::make_unique<fitting::LadderFitter>(nullptr, csv_path);
  return session;
}

FitSession::FitSession(storage::Database& db, int64_t ladder_id, std::string name, bool read_only)
    : source_(std::move(name)) {
  attach(db, ladder_id, read_only);
}

FitSession::FitSession() = default;
FitSession::~FitSession() = default;

void FitSession::attach(storage::Database& db, std::optional<int64_t> ladder_id, bool read_only) {
  db_ = &db;
  db_label_ = db.path();
  read_only_ = read_only;
  ladder_id_ = ladder_id;
  cache_ = std::make_unique<storage::SqliteFitCache>(db, ladder_id_, read_only);
  fitter_ = std::make_unique<fitting::LadderFitter>(cache_.get(), source_);
}

const fitting::ResultsTable& FitSession::table() {
  if (!table_)
    table_ =
        db_ ? storage::readResults(*db_, db_label_, source_) : fitting::readResultsCsv(csv_path_);
  return *table_;
}

fitting::ResultsTable FitSession::currentLadderRuns() {
  if (!db_ || !ladder_id_)
    throw UserError("\"" + source_ + "\" is not a ladder of " + db_label_ +
                    ": only a ladder's runs finish");
  return storage::ladderResults(*db_, *ladder_id_, db_label_ + " (ladder " + source_ + ")");
}

fitting::FrontierResult FitSession::fit(const fitting::ResultsTable& table,
                                        const fitting::FrontierOptions& options, bool lenient) {
  // A CSV strictly: fitFrontier on the whole table, as `fit --csv` always has.
  if (!db_ && !lenient) return fitting::fitFrontier(table, options);
  return fitter_->fit(table, options, lenient);
}

const std::vector<fitting::SkippedArm>& FitSession::skipped() const {
  return fitter_->skipped();
}

FitCacheStore* FitSession::cache() {
  return cache_.get();
}

fitting::BacktestResult FitSession::backtest(const fitting::ResultsTable& table,
                                             const fitting::FrontierOptions& options, int rungs) {
  return fitting::backtestFrontier(table, options, rungs);
}

std::vector<fitting::ProjectionSnapshot> FitSession::history(
    const fitting::ResultsTable& table, const fitting::FrontierOptions& options, double target,
    const std::atomic<bool>* abort) {
  if (!ladder_id_) return {};
  return fitting::projectionHistory(table, fitting::projectionOptions(options, target), target,
                                    cache_.get(), source_, abort);
}

std::vector<fitting::LiveScore> FitSession::predictionLog() {
  std::vector<fitting::LiveScore> log;
  if (!db_ || !ladder_id_) return log;
  for (const storage::ProjectionScoreRecord& r : db_->projectionScores(*ladder_id_)) {
    fitting::LiveScore s;
    s.run_id = r.run_id;
    s.arm = r.arm;
    s.size = r.size;
    s.compute = r.compute;
    s.measured_loss = r.measured_loss;
    s.predicted_loss = r.predicted_loss;
    s.lo = r.lo.value_or(fitting::kNaN);
    s.hi = r.hi.value_or(fitting::kNaN);
    s.rel_error = r.rel_error;
    s.extrapolation = r.extrapolation.value_or(fitting::kNaN);
    s.fitted_runs = r.fitted_runs;
    log.push_back(std::move(s));
  }
  return log;
}

void FitSession::recordScore(const fitting::LiveScore& s) {
  if (!db_ || !ladder_id_ || read_only_)
    throw std::logic_error("recordScore: the session holds no ladder it may write");
  storage::ProjectionScoreRecord r;
  r.ladder_id = *ladder_id_;
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
  db_->saveProjectionScore(r);
}

LadderProgress FitSession::progress() {
  if (!db_ || !ladder_id_) return {};
  return ladderProgress(*db_, *ladder_id_);
}

std::string predictionLogLine(const fitting::LiveScore& score) {
  return fitting::liveScoreLine(score) + " (fit of " + std::to_string(score.fitted_runs) + " runs)";
}

}  // namespace deepladder::session
