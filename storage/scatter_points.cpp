// A scatter's points from the database (see scatter_points.h).
#include "storage/scatter_points.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.h"
#include "core/nearest_word.h"
#include "core/options/option_schema.h"
#include "core/run_option_values.h"
#include "core/run_status.h"
#include "storage/run_option_rows.h"

namespace deepladder::storage {
namespace {

constexpr double kNoAxisValue = std::numeric_limits<double>::quiet_NaN();

bool isDerived(const std::string& x) {
  const auto& names = derivedQuantities();
  return std::find(names.begin(), names.end(), x) != names.end();
}

bool isOption(const std::string& name) {
  const auto& record = runRecordOptions();
  return std::find(record.begin(), record.end(), name) != record.end() ||
         options::findOption(name) != nullptr;
}

std::vector<std::string> knownNames() {
  std::vector<std::string> names = derivedQuantities();
  for (const auto& n : runRecordOptions()) names.push_back(n);
  for (const auto& spec : options::runOptionSchema()) names.push_back(spec.qualifiedKey());
  return names;
}

double xValue(const RunRecord& run, const OptionValues& row, const std::string& x) {
  auto number = [&](const char* name) {
    const auto it = row.find(name);
    return it == row.end() ? std::nullopt : optionNumber(it->second);
  };
  if (x == "params") return run.params > 0 ? double(run.params) : kNoAxisValue;
  if (x == "tokens") return run.tokens > 0 ? double(run.tokens) : kNoAxisValue;
  if (x == "flops") return run.flops > 0 ? run.flops : kNoAxisValue;
  if (x == "tokens_per_param")
    return run.params > 0 && run.tokens > 0 ? double(run.tokens) / double(run.params)
                                            : kNoAxisValue;
  if (x == "lr") {
    const auto lr = number("train.lr"), mult = number("train.lr_mult");
    return lr && mult ? *lr * *mult : kNoAxisValue;
  }
  const auto it = row.find(x);
  if (it == row.end()) return kNoAxisValue;
  return optionNumber(it->second).value_or(kNoAxisValue);
}

}  // namespace

std::string scatterAxisTitle(const std::string& x) {
  if (x == "params") return "parameters";
  if (x == "tokens") return "training tokens";
  if (x == "flops") return "training compute (FLOPs)";
  if (x == "tokens_per_param") return "tokens per parameter";
  if (x == "lr") return "peak learning rate (lr x lr_mult)";
  return x;
}

ScatterData readScatterPoints(Database& db, const ScatterSpec& spec) {
  if (!isDerived(spec.x) && !isOption(spec.x)) {
    const std::string near = nearestWord(spec.x, knownNames());
    throw UserError("--x: '" + spec.x + "' is neither a derived quantity (params, tokens, " +
                    "flops, tokens_per_param, lr) nor a run option" +
                    (near.empty() ? std::string(". See `deepladder options`")
                                  : ". Did you mean '" + near + "'?"));
  }
  if (!spec.group.empty() && !isOption(spec.group)) {
    const std::string near = nearestWord(spec.group, knownNames());
    throw UserError("--group: '" + spec.group + "' is not a run option (arm, size, ladder, " +
                    "seed or a schema option such as train.lr_mult)" +
                    (near.empty() ? std::string() : ". Did you mean '" + near + "'?"));
  }
  std::optional<int64_t> ladder_id;
  if (!spec.ladder.empty()) {
    ladder_id = db.findLadder(spec.ladder);
    if (!ladder_id)
      throw UserError("--ladder: no ladder '" + spec.ladder + "' in " + db.path() +
                      ". See `deepladder status --db " + db.path() + "`");
  }
  ScatterData out;
  out.x_label = scatterAxisTitle(spec.x);
  out.y_label = summaryStatLabel(spec);
  std::vector<OptionValues> rows;
  std::vector<ScatterPoint> points;
  bool x_is_text = false;
  for (const RunSummary& s : db.listRuns(ladder_id)) {
    if (s.run.status != RunStatus::kFinished) continue;
    OptionValues row = runOptionRow(s.run, s.ladder_name);
    const double x = xValue(s.run, row, spec.x);
    const double y = summarizeCurve(db.readMetric(s.run.id, spec.metric), spec);
    if (!std::isfinite(x) || !std::isfinite(y)) {
      const auto it = row.find(spec.x);
      x_is_text = x_is_text || (it != row.end() && !it->second.empty() &&
                                !optionNumber(it->second) && !isDerived(spec.x));
      if (out.left_out++ == 0)
        out.left_out_example = "run #" + std::to_string(s.run.id) + ": " +
                               (!std::isfinite(y) ? "no " + out.y_label : "no " + out.x_label);
      continue;
    }
    ScatterPoint p;
    p.x = x;
    p.y = y;
    p.run_id = s.run.id;
    p.label =
        (s.run.arm.empty() ? "" : s.run.arm + "/") + s.run.name + " #" + std::to_string(s.run.id);
    rows.push_back(std::move(row));
    points.push_back(std::move(p));
  }
  if (points.empty() && x_is_text)
    throw UserError("--x: option '" + spec.x + "' is not a number; put a numeric option or " +
                    "params, tokens, flops, tokens_per_param or lr on the x axis");
  const std::vector<std::string> by =
      spec.group.empty() ? std::vector<std::string>{} : std::vector<std::string>{spec.group};
  for (const RunGroup& g : groupRuns(rows, by)) {
    const std::string name = spec.group.empty() ? g.label : g.values[0];
    out.groups.push_back(name);
    std::vector<ScatterPoint> members;
    for (size_t i : g.members) {
      members.push_back(points[i]);
      members.back().group = name;
    }
    std::stable_sort(members.begin(), members.end(),
                     [](const ScatterPoint& a, const ScatterPoint& b) { return a.x < b.x; });
    out.points.insert(out.points.end(), members.begin(), members.end());
  }
  return out;
}

}  // namespace deepladder::storage
