// Measured tokens/s by run shape (see measured_throughput.h).
#include "storage/measured_throughput.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/ladder/memory_plan.h"
#include "core/metric_keys.h"

namespace deepladder::storage {

std::map<std::string, double> measuredTokensPerSecond(Database& db) {
  std::map<std::string, std::pair<double, int>> sums;  // key -> (sum of run means, runs)
  for (const RunSummary& summary : db.listRuns()) {
    const RunRecord& r = summary.run;
    const std::vector<MetricPoint> points = db.readMetric(r.id, metric_keys::kTokensPerSecond);
    double sum = 0;
    int count = 0;
    for (size_t i = points.size() > 1 ? 1 : 0; i < points.size(); ++i)
      if (std::isfinite(points[i].value) && points[i].value > 0) {
        sum += points[i].value;
        ++count;
      }
    if (count == 0) continue;
    std::string key;
    try {
      key = ladder::throughputShapeKey(runConfigFromJson(nlohmann::json::parse(r.config_json)));
    } catch (const std::exception&) {
      continue;  // a config this version cannot read says nothing about these shapes
    }
    auto& [total, runs] = sums[key];
    total += sum / count;
    ++runs;
  }
  std::map<std::string, double> out;
  for (const auto& [key, value] : sums) out[key] = value.first / value.second;
  return out;
}

}  // namespace deepladder::storage
