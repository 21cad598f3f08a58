// Plain rows of the deepladder database (schema v1, see schema.cpp), as the rest of the code
// sees them. No SQLite types here: any layer that links storage can include this.
// NaN in a REAL column is stored as NULL (SQLite has no NaN); where a row's number reads back
// from NULL it is NaN (MetricPoint::value, LensRow::kl) or std::nullopt (optional fields).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ladder/run_plan.h"
#include "core/metric_curve.h"
#include "core/run_status.h"

namespace deepladder::storage {

// One row of `ladders`: the spec as it was queued, and what enqueueing decided from it.
struct LadderRecord {
  int64_t id = 0;
  std::string name, spec, hash;
  std::string task = "lm";
  std::string resources_json = "{}";  // core/ladder/resources_json.h
};

// One row of `runs`. Times are unix seconds (0 = not yet); params etc. come from the worker's
// hello.
struct RunRecord {
  int64_t id = 0;
  std::optional<int64_t> ladder_id;
  std::string name, arm, size;
  int64_t seed = 0;
  std::string config_json, config_hash;
  RunStatus status = RunStatus::kQueued;  // stored as its word (core/run_status.h)
  int64_t attempt = 0;
  std::string device, job_id;
  double heartbeat = 0;
  int64_t params = 0;
  double flops_per_token = 0;
  int64_t step = 0;
  int64_t tokens = 0;
  double flops = 0;
  std::optional<double> final_loss;  // nullopt until done (and for a NaN final loss)
  std::string error, workdir;
  double started = 0, finished = 0;
  ladder::RunPlan plan;  // computed once when the run was queued (plan_* columns)
};

// A run with what `status` tables show next to it.
struct RunSummary {
  RunRecord run;
  // Value at the highest step of "train/loss" / "val/loss"; nullopt when the run has none,
  // NaN when the last one logged was NaN.
  std::optional<double> last_train_loss, last_val_loss;
  std::string ladder_name;  // "" for a run outside any ladder
};

// One bucket of a curve's decimation pyramid (schema v4, core/metric_pyramid.h): the rows of
// one metric of one run whose steps fall in [bucket * width, (bucket + 1) * width), width =
// pyramidBucketSteps(level). min/max are the points with the lowest and the highest finite value
// (value NaN, step -1 when the bucket has no finite value); their wall is NaN.
struct MetricBucket {
  int level = 0;
  int64_t bucket = 0;
  int64_t count = 0;  // rows in the bucket (NaN values included)
  int64_t first_step = 0, last_step = 0;
  MetricPoint min, max;
};

// One row of `metrics`.
struct MetricRow {
  int64_t run_id;
  std::string key;
  int64_t step;
  int64_t tokens;
  double flops;
  double value;
  double wall;
};

struct CheckpointRow {
  int64_t run_id = 0;
  int64_t step = 0;
  std::string path;
  std::string sha256;
};

// Logit-lens KL of one block at one step (block 0 = embedding).
struct LensRow {
  int64_t run_id = 0;
  int64_t step = 0;
  int64_t block = 0;
  double kl = 0;
};

// Accuracy on a serial task at one (n_bits, T) point.
struct EvalRow {
  int64_t run_id = 0;
  int64_t step = 0;
  std::string task;
  int64_t n_bits = 0;
  int64_t T = 0;
  int64_t correct = 0;
  int64_t total = 0;
};

// Something that happened to a run at a step (growth, re-warm, ...).
struct EventRow {
  int64_t run_id = 0;
  int64_t step = 0;
  std::string name;
  std::string detail;
};

// One fitted scaling law. params/stderr are JSON objects written by the fitter.
struct FitRecord {
  int64_t id = 0;
  std::string source;  // a ladder name/hash or an imported CSV's name
  std::string arm;
  std::string form;  // e.g. "L(C)=E+A(C/1e18)^-gamma"
  std::string params_json = "{}";
  std::string stderr_json = "{}";
  std::string created;  // ISO-8601 UTC, set by the database
};

// One step of an adaptive ladder (table `decisions`): what it did, why, and every candidate it
// weighed with its scores as JSON (fitting/suggest_report.h), so its history replays.
struct DecisionRecord {
  int64_t id = 0;
  int64_t ladder_id = 0;
  double created = 0;             // unix seconds
  std::string kind;               // queue, stop-budget, stop-width
  std::optional<int64_t> run_id;  // the run it queued
  double spent_flops = 0;         // planned FLOPs queued before this decision
  double budget_flops = 0;
  std::string reason;
  std::string candidates_json = "[]";
};

// A finished run scored against the projection made before it (fitting/live_score.h): one row of
// a ladder's error log.
struct ProjectionScoreRecord {
  int64_t id = 0;
  int64_t ladder_id = 0;
  int64_t run_id = 0;
  double created = 0;  // unix seconds
  std::string arm;
  std::string size;
  double compute = 0;         // the run's training FLOPs
  double measured_loss = 0;   // its final loss
  double predicted_loss = 0;  // the fit before it at its compute
  std::optional<double> lo;   // that fit's interval (none without a bootstrap)
  std::optional<double> hi;
  double rel_error = 0;                 // (predicted - measured) / measured
  std::optional<double> extrapolation;  // compute / largest compute of the arm fitted before
  int fitted_runs = 0;                  // finished runs behind the fit before
};

// A (compute, loss) point imported from a results CSV (`deepladder import`).
struct ExternalPoint {
  std::string source;
  std::string arm;
  double compute = 0;
  double loss = 0;
  std::optional<double> params, tokens, depth;
};

// A named plot view the workbench saved (table `saved_views`, schema v7): which plot, and its
// settings as JSON (a scatter's: core/scatter_spec.h).
struct SavedView {
  std::string name;
  std::string kind;  // "scatter"
  std::string spec_json = "{}";
  std::string created;  // ISO-8601 UTC, set by the database
};

}  // namespace deepladder::storage
