// The deepladder SQLite database: one file (WAL) holding ladders, runs, metric curves,
// checkpoints, logit-lens KL, serial-task evals, events, fits and imported points.
// Open with Database::open (creates and migrates the schema); one Database per thread: readers in
// other threads or processes open their own and never block the writer (WAL + busy_timeout).
// Errors the user can fix (unwritable path, not a database, written by a newer deepladder) are
// deepladder::UserError; failures of SQLite itself are std::runtime_error.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/fit_cache_store.h"
#include "core/run_status.h"
#include "storage/records.h"

namespace deepladder::storage {

class Transaction;

class Database {
 public:
  using Transaction = ::deepladder::storage::Transaction;
  static constexpr int kSchemaVersion = 9;

  // Opens (creating the file and the schema when missing) and migrates to kSchemaVersion.
  // read_only: never creates or migrates; the file must exist at the current schema.
  static std::unique_ptr<Database> open(const std::string& path, bool read_only = false);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const std::string& path() const;
  int schemaVersion() const;  // PRAGMA user_version

  // --- ladders and runs -------------------------------------------------------------------
  // Returns the id of the ladder with this hash, inserting it first when there is none (with its
  // task and resources; an existing row keeps what it was queued with).
  int64_t upsertLadder(const std::string& name, const std::string& spec, const std::string& hash,
                       const std::string& task = "lm", const std::string& resources_json = "{}");
  std::optional<LadderRecord> ladder(int64_t ladder_id);
  // By exact hash, then by name (the newest ladder of that name).
  std::optional<int64_t> findLadder(const std::string& name_or_hash);
  // Every ladder of this name (not hash), oldest first.
  std::vector<LadderRecord> laddersNamed(const std::string& name);
  // The ladder's spec text as it was run ("" when there is no such ladder).
  std::string ladderSpec(int64_t ladder_id);
  int64_t insertRun(const RunRecord& run);  // ignores run.id; returns the new id
  std::optional<RunRecord> run(int64_t id);
  // All runs (or one ladder's), by id, with their last train/val loss.
  std::vector<RunSummary> listRuns(std::optional<int64_t> ladder_id = std::nullopt);
  void setRunStatus(int64_t id, RunStatus status, const std::string& error = {});
  void updateRun(const RunRecord& run);  // every column but id and created

  // Narrow updates the ingester uses, so it never overwrites what the scheduler set.
  void markRunStarted(int64_t id, const std::string& device, int64_t params, double flops_per_token,
                      double now);
  void updateRunProgress(int64_t id, int64_t step, int64_t tokens, double flops, double heartbeat);
  void markRunDone(int64_t id, RunStatus status, std::optional<double> final_loss, int64_t steps,
                   int64_t tokens, double flops, double finished, const std::string& error);
  void setRunError(int64_t id, const std::string& error);

  // --- metrics ----------------------------------------------------------------------------
  // One transaction (or a savepoint inside the caller's); upsert on (run_id, key, step), so
  // writing the same rows twice leaves one copy with the last values. Keys are stored as their
  // metric_keys id (schema v5), created for a new name; every run written must exist.
  void writeMetrics(const std::vector<MetricRow>& rows);
  std::vector<MetricPoint> readMetric(int64_t run_id, const std::string& key);  // by step
  std::vector<std::string> metricKeys(int64_t run_id);                          // sorted

  // --- the metric decimation pyramid (core/metric_pyramid.h, metric_pyramid.cpp) --------
  // What a plot `pixels` wide reads of a curve over steps [step_lo, step_hi] (clamped to the
  // curve's own steps): the buckets of the coarsest level with at least pixels / 2 buckets in
  // the range (pyramidLevelForPixels), as each bucket's min and max point in step order (whole
  // buckets, so points up to one bucket outside the range come too); every row in the range
  // when even level 0 is coarser. pixels <= 0 reads every row.
  MetricCurve readCurve(int64_t run_id, const std::string& key, int pixels,
                        int64_t step_lo = INT64_MIN, int64_t step_hi = INT64_MAX);
  // One level's buckets holding steps in [step_lo, step_hi], by bucket.
  std::vector<MetricBucket> readPyramidLevel(int64_t run_id, const std::string& key, int level,
                                             int64_t step_lo = INT64_MIN,
                                             int64_t step_hi = INT64_MAX);
  // The rows of one curve with steps in [step_lo, step_hi], by step.
  std::vector<MetricPoint> readMetricRange(int64_t run_id, const std::string& key, int64_t step_lo,
                                           int64_t step_hi);

  // --- checkpoints, lens, evals, events (all upserts on their primary key) ----------------
  void addCheckpoint(const CheckpointRow& row);
  std::vector<CheckpointRow> checkpoints(int64_t run_id);  // by step
  std::optional<CheckpointRow> latestCheckpoint(int64_t run_id);
  void writeLens(const std::vector<LensRow>& rows);
  std::vector<LensRow> lens(int64_t run_id);  // by step, block
  void writeEvals(const std::vector<EvalRow>& rows);
  std::vector<EvalRow> evals(int64_t run_id);  // by step, task, n_bits, T
  void writeEvents(const std::vector<EventRow>& rows);
  std::vector<EventRow> events(int64_t run_id);  // by step, name

  // --- fits and imported points -----------------------------------------------------------
  int64_t insertFit(const FitRecord& fit);                      // returns the new id
  std::vector<FitRecord> fits(const std::string& source = {});  // all when source is ""
  // Replaces every point of `source` with `points` (re-importing a CSV duplicates nothing).
  void replaceExternalPoints(const std::string& source, const std::vector<ExternalPoint>& points);
  std::vector<ExternalPoint> externalPoints(const std::string& source = {});

  // --- the fit cache (storage/fit_cache.cpp) and adaptive decisions (storage/decisions.cpp) --
  // The finished runs of a ladder with a final loss, by the time they ended (then id): runs
  // columns only, no metrics. What fits read (storage/result_points.h).
  std::vector<RunRecord> finishedRuns(int64_t ladder_id);
  // The sweep points of a ladder that a halving stop ended early (no final loss), the same columns.
  std::vector<RunRecord> stoppedRuns(int64_t ladder_id);
  // The result stored under a cache key (fits.cache_key), if any.
  std::optional<std::string> cachedFit(const std::string& key);
  // Stores a cache entry (replacing one with the same key); ladder_id: the ladder whose finished
  // runs drop it (see schema.cpp, version 3), nullopt for a CSV or imported source.
  void saveCachedFit(const CachedFitEntry& entry, std::optional<int64_t> ladder_id);
  int64_t insertDecision(const DecisionRecord& decision);    // returns the new id
  std::vector<DecisionRecord> decisions(int64_t ladder_id);  // by id
  // The error log of the live projection (storage/projection_scores.cpp, schema v6): one row per
  // finished run scored against the fit before it; a run scored again replaces its row.
  void saveProjectionScore(const ProjectionScoreRecord& score);
  std::vector<ProjectionScoreRecord> projectionScores(int64_t ladder_id);  // by created, id
  // Named plot views (storage/saved_views.cpp, schema v7): a view's kind ("scatter") and its spec
  // as JSON text; saving a name again replaces it.
  void saveView(const SavedView& view);
  std::optional<SavedView> savedView(const std::string& name);
  std::vector<SavedView> savedViews(const std::string& kind = {});  // by name; all when kind ""

  // --- tools and tests --------------------------------------------------------------------
  void execute(const std::string& sql);      // one or more statements, no results
  int64_t queryInt(const std::string& sql);  // first column of the first row (0 if none)
  std::string integrityCheck();              // "ok" when fine
  bool inTransaction() const;

  struct Impl;  // storage-internal (database_impl.h)

 private:
  friend Transaction;
  explicit Database(std::unique_ptr<Impl> impl);
  std::vector<RunRecord> runsForFits(int64_t ladder_id, RunStatus status);
  std::unique_ptr<Impl> impl_;
};

// RAII transaction: BEGIN IMMEDIATE (or a SAVEPOINT when one is already open), rolled back on
// destruction unless commit() was called. Nests.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool nested_ = false;
  bool done_ = false;
};

}  // namespace deepladder::storage
