// One fit session: the pipeline every fit of deepladder goes through, whoever asks for it
// (`fit`, `export`, `plot`, the live ladder of `run` and `watch`, the workbench's Frontier view).
// It opens the data (a database, read-only or not, falling back to read-only when the file
// allows no writing; or a results CSV), reads the points once, fits them through the fits
// table's cache (fitting/ladder_fit.h: the sweep envelope, per-arm shares, the bootstrap and the
// prediction intervals), backtests with the same options, replays the projection history, reads
// and records the ladder's live scores, and says how far the ladder has come. Callers wire
// options and print; they do not repeat any of these steps.
//
// Why here, as its own target (deepladder_fit_session) under fitting/: the pipeline needs both
// the database (storage/) and the fits (fitting/), but fitting/ may use only core and Ceres and
// storage/ only core and SQLite; the workbench (ui/) cannot link app/. A small library above the
// two, linking storage and fitting and nothing else, is the one place both the CLI and the
// workbench reach without either layer learning of the other.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/fit_cache_store.h"
#include "fitting/backtest.h"
#include "fitting/fit_types.h"
#include "fitting/ladder_fit.h"
#include "fitting/live_projection.h"
#include "fitting/live_score.h"
#include "fitting/session/ladder_progress.h"

namespace deepladder::storage {
class Database;
class SqliteFitCache;
}  // namespace deepladder::storage

namespace deepladder::session {

// How a session opens the database.
enum class DatabaseAccess {
  kReadOnly,        // look only: cached fits are reused, none is stored (`fit`, `export`, `plot`)
  kWrite,           // store fits and scores (`fit --record`); the file must allow it
  kWriteIfAllowed,  // store when the file allows it, else read-only (the workbench)
};

class FitSession {
 public:
  // `db_path` must exist (UserError naming it otherwise: a typo never leaves an empty file);
  // `source` names a ladder (name or hash) or an imported source.
  static std::unique_ptr<FitSession> open(const std::string& db_path, const std::string& source,
                                          DatabaseAccess access);
  // The points of a results CSV (no cache, no history, no scores).
  static std::unique_ptr<FitSession> fromCsv(const std::string& csv_path);
  // A session over a database its caller keeps open (the live ladder's connection), for ladder
  // `ladder_id`, named `name` in its fits cache and messages.
  FitSession(storage::Database& db, int64_t ladder_id, std::string name, bool read_only);
  ~FitSession();
  FitSession(const FitSession&) = delete;
  FitSession& operator=(const FitSession&) = delete;

  storage::Database* database() { return db_; }  // null for a CSV
  bool readOnly() const { return read_only_; }
  const std::string& source() const { return source_; }
  std::optional<int64_t> ladderId() const { return ladder_id_; }

  // The points to fit, read once: a ladder's finished runs in the order they ended, an imported
  // source's points, or the CSV's rows. UserError when there is nothing to fit.
  const fitting::ResultsTable& table();
  // A ladder's finished runs now (possibly none), read again each call (the live ladder, as its
  // runs finish). Ladders only.
  fitting::ResultsTable currentLadderRuns();

  // The frontier fit of `table` through the fits table's cache: reused when the same points were
  // fitted with the same options before, stored when fitted now (unless read-only). Strict: the
  // checks and UserErrors of fitting::fitFrontier; lenient: arms that cannot be fitted yet are
  // left out (skipped()), a UserError only when the baseline cannot be.
  fitting::FrontierResult fit(const fitting::ResultsTable& table,
                              const fitting::FrontierOptions& options, bool lenient = false);
  // Arms the last fit left out, and why.
  const std::vector<fitting::SkippedArm>& skipped() const;
  // The fits table as a cache (null for a CSV); the live projection fits through it too.
  FitCacheStore* cache();

  // Every arm refitted without its top 1..rungs rungs, same options (fitting/backtest.h).
  static fitting::BacktestResult backtest(const fitting::ResultsTable& table,
                                          const fitting::FrontierOptions& options, int rungs);
  // The projection at `target` after each finished run (fitting/projection_history.h), with the
  // live projection's options (fitting::projectionOptions): what `run` and `watch` showed.
  std::vector<fitting::ProjectionSnapshot> history(const fitting::ResultsTable& table,
                                                   const fitting::FrontierOptions& options,
                                                   double target,
                                                   const std::atomic<bool>* abort = nullptr);
  // The ladder's live prediction log: each finished run against the fit made before it, in the
  // order they were scored (empty for a source that is not a ladder).
  std::vector<fitting::LiveScore> predictionLog();
  // Stores one score in that log (a session that may write).
  void recordScore(const fitting::LiveScore& score);
  // How far the ladder has come (empty for a source that is not a ladder).
  LadderProgress progress();

 private:
  FitSession();
  void attach(storage::Database& db, std::optional<int64_t> ladder_id, bool read_only);

  std::unique_ptr<storage::Database> owned_;
  storage::Database* db_ = nullptr;
  std::string db_label_;  // the database's path, for the table's source
  bool read_only_ = true;
  std::string source_;
  std::optional<int64_t> ladder_id_;
  std::string csv_path_;
  std::optional<fitting::ResultsTable> table_;
  std::unique_ptr<storage::SqliteFitCache> cache_;
  std::unique_ptr<fitting::LadderFitter> fitter_;
};

// "d14 came in at 2.912, predicted 2.921 [2.90, 2.94], +0.3% (vanilla) (fit of 12 runs)": one
// line of the prediction log.
std::string predictionLogLine(const fitting::LiveScore& score);

}  // namespace deepladder::session
