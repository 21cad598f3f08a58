// A ladder's runs as curves for the curve predictions (see curve_inputs.h).
#include "app/curve_inputs.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/architecture.h"
#include "core/learning_rate_schedule.h"
#include "core/metric_keys.h"
#include "core/run_config.h"
#include "core/run_status.h"

namespace deepladder::app {

LadderCurves readLadderCurves(storage::Database& db, int64_t ladder_id,
                              const std::set<std::string>* arms) {
  LadderCurves out;
  for (const storage::RunSummary& summary : db.listRuns(ladder_id)) {
    const storage::RunRecord& r = summary.run;
    if (arms && !arms->count(r.arm)) continue;
    const bool finished = r.status == RunStatus::kFinished && r.final_loss.has_value();
    const bool partial = r.status == RunStatus::kRunning || r.status == RunStatus::kInterrupted ||
                         r.status == RunStatus::kStopped;
    if (!finished && !partial) continue;
    RunConfig config;
    try {
      config = runConfigFromJson(nlohmann::json::parse(r.config_json));
    } catch (const std::exception&) {
      continue;  // a config this version cannot read has no schedule to predict with
    }
    if (config.task != Task::lm) continue;
    fitting::RunCurve curve;
    curve.run_id = r.id;
    curve.name = r.name;
    curve.group = r.arm;
    curve.rates = learningRates(config);
    curve.crossover = growthStep(config.model, config.train.steps);
    for (const MetricPoint& p : db.readMetric(r.id, metric_keys::kTrainLoss))
      if (p.step >= 1) curve.points.push_back({p.step - 1, p.value, 1.0, false});
    for (const MetricPoint& p : db.readMetric(r.id, metric_keys::kValLoss))
      curve.points.push_back({p.step, p.value, double(config.train.eval_batches), true});
    std::stable_sort(curve.points.begin(), curve.points.end(),
                     [](const auto& a, const auto& b) { return a.updates < b.updates; });
    if (finished) curve.final_loss = r.final_loss;
    out.curves.push_back(std::move(curve));
    out.runs[r.id] = r;
  }
  return out;
}

}  // namespace deepladder::app
