// Sweep halving during `run` (see ladder_halving.h).
#include "app/ladder_halving.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>

#include "app/curve_inputs.h"
#include "core/eval_fractions.h"
#include "core/ladder/sweep.h"
#include "core/metric_keys.h"
#include "core/run_config.h"
#include "core/run_status.h"
#include "fitting/sweep_halving.h"
#include "storage/run_store_sqlite.h"

namespace deepladder::app {
namespace {

fitting::HalvingState halvingState(RunStatus status) {
  if (status == RunStatus::kFinished) return fitting::HalvingState::kFinished;
  if (status == RunStatus::kRunning) return fitting::HalvingState::kRunning;
  if (status == RunStatus::kStopped) return fitting::HalvingState::kStopped;
  if (status == RunStatus::kQueued || status == RunStatus::kInterrupted)
    return fitting::HalvingState::kQueued;
  return fitting::HalvingState::kFailed;
}

}  // namespace

LadderHalving::LadderHalving(storage::Database& db, int64_t ladder_id, ladder::SweepStop stop)
    : db_(db), ladder_id_(ladder_id), stop_(std::move(stop)) {
  refreshPoints();
}

void LadderHalving::refreshPoints() {
  // A point the user reopened (`resume --stopped`) runs to its end: it is not judged again.
  std::set<int64_t> reopened;
  for (const storage::DecisionRecord& d : db_.decisions(ladder_id_))
    if (d.kind == "halving-reopen" && d.run_id) reopened.insert(*d.run_id);
  const std::vector<storage::RunSummary> runs = db_.listRuns(ladder_id_);
  std::vector<storage::RunRecord> records;
  for (const storage::RunSummary& s : runs) records.push_back(s.run);
  const std::set<int64_t> calibration = storage::calibrationRuns(records);
  for (const storage::RunSummary& s : runs) {
    const storage::RunRecord& r = s.run;
    Point& p = points_[r.id];
    p.arm = r.arm;
    p.size = r.size;
    p.label = ladder::sweepLabelOfRunName(r.name, r.arm, r.size, r.seed);
    p.swept = !p.label.empty();
    p.reopened = reopened.count(r.id) > 0;
    p.calibration = calibration.count(r.id) > 0;
    p.total_steps = r.plan.steps;
    p.eval_fractions.clear();
    try {
      p.eval_fractions =
          parseEvalFractions(runConfigFromJson(nlohmann::json::parse(r.config_json)).train.eval_at);
    } catch (const std::exception&) {
      // a config this version cannot read: judged from its train loss
    }
  }
}

bool LadderHalving::validationStored(int64_t run_id, const Point& point, double fraction,
                                     int64_t step) {
  if (std::isnan(fraction) || point.total_steps <= 0) return true;
  const int64_t eval_step = evalFractionStep(fraction, point.total_steps);
  if (std::none_of(point.eval_fractions.begin(), point.eval_fractions.end(), [&](double f) {
        return std::abs(f - fraction) < 1e-6 && evalFractionStep(f, point.total_steps) == eval_step;
      }))
    return true;  // it does not validate there
  if (step > eval_step + std::max<int64_t>(16, point.total_steps / 20)) return true;
  for (const MetricPoint& m : db_.readMetric(run_id, metric_keys::kValLoss))
    if (m.step == eval_step) return true;
  return false;
}

std::vector<std::string> LadderHalving::onProgress(int64_t run_id, int64_t step) {
  if (!stop_.halving) return {};
  auto it = points_.find(run_id);
  if (it == points_.end()) {
    refreshPoints();  // a run queued since (an adaptive decision)
    it = points_.find(run_id);
    if (it == points_.end()) return {};
  }
  const Point& p = it->second;
  if (!p.swept || p.reopened || p.calibration || p.total_steps <= 0) return {};
  const double due =
      fitting::dueHalvingFraction(stop_.fractions, p.judged, double(step) / double(p.total_steps));
  if (std::isnan(due) || !validationStored(run_id, p, due, step)) return {};
  try {
    std::vector<std::string> lines = judge(run_id, step);
    it->second.judged = std::max(it->second.judged, due);  // not again at this fraction
    return lines;
  } catch (const std::exception& e) {
    it->second.judged = std::max(it->second.judged, due);
    return {std::string("halving: no decision this time (") + e.what() + ")"};
  }
}

std::map<int64_t, double> LadderHalving::duePoints(const std::vector<storage::RunSummary>& runs,
                                                   int64_t trigger_run, int64_t trigger_step) {
  std::map<int64_t, double> due_points;
  for (const storage::RunSummary& s : runs) {
    const storage::RunRecord& r = s.run;
    const auto it = points_.find(r.id);
    if (it == points_.end() || r.status != RunStatus::kRunning) continue;
    const Point& p = it->second;
    if (!p.swept || p.reopened || p.calibration || p.total_steps <= 0) continue;
    // The stored step may lag the progress line that called (the ingester writes in batches).
    const int64_t step = r.id == trigger_run ? std::max(r.step, trigger_step) : r.step;
    const double due = fitting::dueHalvingFraction(stop_.fractions, p.judged,
                                                   double(step) / double(p.total_steps));
    // A point whose validation loss at the fraction is not stored yet is judged on its own
    // progress line, once it is.
    if (!std::isnan(due) && validationStored(r.id, p, due, step)) due_points[r.id] = due;
  }
  return due_points;
}

std::vector<std::string> LadderHalving::judge(int64_t trigger_run, int64_t trigger_step) {
  std::vector<std::string> lines;
  // Only the arms with a point due are predicted: a rung's points are one arm's, and the law's
  // shared parameters and the intervals' calibrations are per arm, so the other arms' predictions
  // could not change a decision. They were most of a judgement's time once the ladder had many
  // finished runs, on the scheduler's thread, while the slots waited.
  const std::vector<storage::RunSummary> runs = db_.listRuns(ladder_id_);
  const std::map<int64_t, double> due_points = duePoints(runs, trigger_run, trigger_step);
  std::set<std::string> arms;
  for (const storage::RunSummary& s : runs)
    if (due_points.count(s.run.id)) arms.insert(s.run.arm);
  if (arms.empty()) return lines;
  const LadderCurves curves = readLadderCurves(db_, ladder_id_, &arms);
  const std::vector<fitting::CurvePrediction> predictions =
      fitting::predictFinalLosses(curves.curves, fitting::defaultCurveLawOptions(),
                                  /*calibrate=*/true, &calibrations_);
  std::map<int64_t, const fitting::CurvePrediction*> by_run;
  std::vector<storage::MetricRow> rows;
  const double now = double(std::time(nullptr));
  for (const fitting::CurvePrediction& pr : predictions) {
    by_run[pr.run_id] = &pr;
    const auto run = curves.runs.find(pr.run_id);
    if (!pr.loss || run == curves.runs.end() || run->second.status != RunStatus::kRunning) continue;
    const storage::RunRecord& r = run->second;
    for (const auto& [key, value] : {std::pair{metric_keys::kPredictedFinalLoss, *pr.loss},
                                     std::pair{metric_keys::kPredictedFinalLossLo, pr.lo},
                                     std::pair{metric_keys::kPredictedFinalLossHi, pr.hi}})
      rows.push_back({r.id, key, r.step, r.tokens, r.flops, value, now});
  }
  if (!rows.empty()) db_.writeMetrics(rows);

  // Rungs with a due point, halved one by one.
  std::map<std::pair<std::string, std::string>, std::vector<fitting::HalvingPoint>> rungs;
  for (const storage::RunSummary& s : runs) {
    const storage::RunRecord& r = s.run;
    Point& p = points_[r.id];
    if (!p.swept || !arms.count(r.arm)) continue;
    fitting::HalvingPoint h;
    h.run_id = r.id;
    h.label = p.label;
    h.state = halvingState(r.status);
    if (h.state == fitting::HalvingState::kFinished && r.final_loss) {
      h.loss = r.final_loss;
      h.lo = h.hi = *r.final_loss;
    } else if (const auto pr = by_run.find(r.id); pr != by_run.end() && pr->second->loss) {
      h.loss = pr->second->loss;
      h.lo = pr->second->lo;
      h.hi = pr->second->hi;
      h.calibrated = pr->second->calibrated;
    }
    if (const auto due = due_points.find(r.id); due != due_points.end()) {
      h.due = due->second;
      p.judged = h.due;
    }
    rungs[{r.arm, r.size}].push_back(std::move(h));
  }
  for (auto& [rung, points] : rungs) {
    for (const fitting::HalvingDecision& d : fitting::halveRung(points)) {
      ++decisions_;
      const std::string reason = "halving: " + d.reason;
      db_.setRunStatus(d.run_id, RunStatus::kStopped, reason);
      storage::DecisionRecord record;
      record.ladder_id = ladder_id_;
      record.created = now;
      record.kind = "halving-stop";
      record.run_id = d.run_id;
      record.reason = d.reason;
      record.candidates_json = nlohmann::json::array({{{"label", d.label},
                                                       {"fraction", d.fraction},
                                                       {"predicted", d.predicted},
                                                       {"lo", d.lo},
                                                       {"hi", d.hi},
                                                       {"best_label", d.best_label},
                                                       {"best_loss", d.best_loss},
                                                       {"best_lo", d.best_lo},
                                                       {"best_hi", d.best_hi},
                                                       {"best_measured", d.best_measured}}})
                                   .dump();
      db_.insertDecision(record);
      lines.push_back("stopped  " + rung.first + " " + rung.second + " " + d.label + ": " +
                      d.reason);
    }
  }
  return lines;
}

}  // namespace deepladder::app
