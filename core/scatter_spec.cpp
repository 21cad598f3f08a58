// The scatter's spec, its JSON, and the summary statistic of a curve (see scatter_spec.h).
#include "core/scatter_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/errors.h"

namespace deepladder {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct StatName {
  SummaryStat stat;
  const char* name;
};
constexpr StatName kStatNames[] = {{SummaryStat::kFinal, "final"},
                                   {SummaryStat::kMin, "min"},
                                   {SummaryStat::kLastK, "last_k"},
                                   {SummaryStat::kAtStep, "at_step"},
                                   {SummaryStat::kAtFlops, "at_flops"}};

// The value at `where` on x(point) (ascending), linear between neighbours; NaN outside.
template <typename X>
double valueAt(const std::vector<MetricPoint>& finite, double where, X x) {
  if (finite.empty() || where < x(finite.front()) || where > x(finite.back())) return kNaN;
  const auto it = std::lower_bound(finite.begin(), finite.end(), where,
                                   [&](const MetricPoint& p, double w) { return x(p) < w; });
  if (x(*it) == where || it == finite.begin()) return it->value;
  const MetricPoint& a = *(it - 1);
  const double t = (where - x(a)) / (x(*it) - x(a));
  return a.value + t * (it->value - a.value);
}

}  // namespace

const std::vector<std::string>& derivedQuantities() {
  static const std::vector<std::string> names = {"params", "tokens", "flops", "tokens_per_param",
                                                 "lr"};
  return names;
}

std::string summaryStatName(SummaryStat stat) {
  for (const auto& s : kStatNames)
    if (s.stat == stat) return s.name;
  return "final";
}

SummaryStat parseSummaryStat(const std::string& name) {
  for (const auto& s : kStatNames)
    if (name == s.name) return s.stat;
  throw UserError("--stat: '" + name + "' is not final, min, last_k, at_step or at_flops");
}

std::string summaryStatLabel(const ScatterSpec& spec) {
  char at[32];
  std::snprintf(at, sizeof at, "%g", spec.at);
  switch (spec.stat) {
    case SummaryStat::kFinal:
      return "final " + spec.metric;
    case SummaryStat::kMin:
      return "minimum " + spec.metric;
    case SummaryStat::kLastK:
      return "mean of last " + std::to_string(spec.k) + " " + spec.metric;
    case SummaryStat::kAtStep:
      return spec.metric + " at step " + at;
    case SummaryStat::kAtFlops:
      return spec.metric + " at " + at + " FLOPs";
  }
  return spec.metric;
}

double summarizeCurve(const std::vector<MetricPoint>& points, const ScatterSpec& spec) {
  std::vector<MetricPoint> finite;
  finite.reserve(points.size());
  for (const auto& p : points)
    if (std::isfinite(p.value)) finite.push_back(p);
  if (finite.empty()) return kNaN;
  switch (spec.stat) {
    case SummaryStat::kFinal:
      return finite.back().value;
    case SummaryStat::kMin: {
      double m = finite.front().value;
      for (const auto& p : finite) m = std::min(m, p.value);
      return m;
    }
    case SummaryStat::kLastK: {
      const size_t k = std::min(finite.size(), static_cast<size_t>(std::max(1, spec.k)));
      double sum = 0.0;
      for (size_t i = finite.size() - k; i < finite.size(); ++i) sum += finite[i].value;
      return sum / static_cast<double>(k);
    }
    case SummaryStat::kAtStep:
      return valueAt(finite, spec.at, [](const MetricPoint& p) { return double(p.step); });
    case SummaryStat::kAtFlops:
      return valueAt(finite, spec.at, [](const MetricPoint& p) { return p.flops; });
  }
  return kNaN;
}

nlohmann::json scatterSpecToJson(const ScatterSpec& s) {
  return {{"ladder", s.ladder}, {"metric", s.metric}, {"stat", summaryStatName(s.stat)},
          {"k", s.k},           {"at", s.at},         {"x", s.x},
          {"group", s.group},   {"log_x", s.log_x},   {"log_y", s.log_y}};
}

ScatterSpec scatterSpecFromJson(const nlohmann::json& json, const std::string& where) {
  if (!json.is_object())
    throw UserError(where + ": a scatter view is a JSON object; this one is a " +
                    std::string(json.type_name()) + ". Save the view again");
  ScatterSpec s = defaultScatterSpec();
  for (const auto& [key, value] : json.items()) {
    auto wrong = [&](const char* type) {
      return UserError(where + ": \"" + key + "\" should be " + type + ", not " +
                       std::string(value.type_name()) + ". Save the view again");
    };
    if (key == "ladder" || key == "metric" || key == "stat" || key == "x" || key == "group") {
      if (!value.is_string()) throw wrong("a string");
      const std::string text = value.get<std::string>();
      if (key == "ladder") s.ladder = text;
      if (key == "metric") s.metric = text;
      if (key == "stat") s.stat = parseSummaryStat(text);
      if (key == "x") s.x = text;
      if (key == "group") s.group = text;
    } else if (key == "k") {
      if (!value.is_number_integer()) throw wrong("an integer");
      s.k = value.get<int>();
    } else if (key == "at") {
      if (!value.is_number()) throw wrong("a number");
      s.at = value.get<double>();
    } else if (key == "log_x" || key == "log_y") {
      if (!value.is_boolean()) throw wrong("true or false");
      (key == "log_x" ? s.log_x : s.log_y) = value.get<bool>();
    } else {
      throw UserError(where + ": unknown key \"" + key +
                      "\" in a scatter view (known: ladder, metric, stat, k, at, x, group, log_x, "
                      "log_y). Save the view again");
    }
  }
  if (s.k < 1) throw UserError(where + ": \"k\" must be at least 1");
  return s;
}

}  // namespace deepladder
