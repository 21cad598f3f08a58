// The scatter plot of runs: a summary statistic of one metric of each run (final, minimum, mean of
// the last k evals, the value at a step or at a compute) against a numeric option or a derived
// quantity (parameters, tokens, FLOPs, tokens per parameter, lr), grouped and coloured by another
// option, with a law fitted per group (fitting/scatter_law.h). The spec is what a saved view
// stores (as JSON, storage/saved_views.h) and what `deepladder plot scatter` reads from its flags;
// the statistic of a curve is computed here so every reader agrees on it.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/metric_curve.h"

namespace deepladder {

enum class SummaryStat {
  kFinal,    // the value at the highest step
  kMin,      // the least value
  kLastK,    // the mean of the last k values
  kAtStep,   // the value at step `at` (linear between the neighbouring steps)
  kAtFlops,  // the value at `at` training FLOPs (linear between neighbours)
};

struct ScatterSpec {
  std::string ladder;               // only this ladder's runs ("" = every run)
  std::string metric = "val/loss";  // y: the metric summarised
  SummaryStat stat = SummaryStat::kFinal;
  int k = 3;                  // kLastK: values averaged
  double at = 0.0;            // kAtStep, kAtFlops: where
  std::string x = "params";   // a derived quantity (derivedQuantities()) or an option
  std::string group = "arm";  // the option that groups and colours ("" = one group)
  bool log_x = true;
  bool log_y = false;
};

inline ScatterSpec defaultScatterSpec() {
  return ScatterSpec{};
}

// The x quantities derived from a run's record rather than its options: "params", "tokens",
// "flops" (training FLOPs), "tokens_per_param", "lr" (train.lr x train.lr_mult, the peak
// learning rate the run used).
const std::vector<std::string>& derivedQuantities();

// "final", "min", "last_k", "at_step", "at_flops"; parseSummaryStat throws UserError naming the
// choices.
std::string summaryStatName(SummaryStat stat);
SummaryStat parseSummaryStat(const std::string& name);
// The statistic in words for an axis label ("final val/loss", "mean of last 3 val/loss").
std::string summaryStatLabel(const ScatterSpec& spec);

// The statistic of a curve (points in step order; NaN values skipped); NaN when the curve has no
// finite value, or for kAtStep / kAtFlops outside the curve's range.
double summarizeCurve(const std::vector<MetricPoint>& points, const ScatterSpec& spec);

nlohmann::json scatterSpecToJson(const ScatterSpec& spec);
// Unknown keys and wrong types are UserErrors naming `where` (a view's name) and the key.
ScatterSpec scatterSpecFromJson(const nlohmann::json& json, const std::string& where);

// One run's point of the scatter.
struct ScatterPoint {
  double x = 0.0, y = 0.0;
  std::string group;  // its value of the grouping option
  int64_t run_id = 0;
  std::string label;  // the run as a legend labels it
};

}  // namespace deepladder
