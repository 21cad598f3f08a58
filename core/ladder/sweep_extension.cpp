// One sweep point past an edge (see sweep_extension.h). Like size_extension.cpp, the spec's TOML
// is rewritten (the arm restricted to the rung's size and the ladder to its first seed, the
// arm's sweep set to the single new point) and planned by parseLadder, so the new point is
// planned and validated by the very code that plans the ladder.
#include "core/ladder/sweep_extension.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "core/toml_reader.h"

namespace deepladder::ladder {
namespace {

// A value text of a label as the option's typed value; false when it is not one.
bool typedValue(const options::OptionSpec& option, const std::string& text,
                options::OptionValue& out) {
  switch (option.type) {
    case options::OptionType::integer: {
      char* end = nullptr;
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0') return false;
      out = static_cast<int64_t>(v);
      return true;
    }
    case options::OptionType::number: {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0') return false;
      out = v;
      return true;
    }
    case options::OptionType::boolean:
      if (text != "true" && text != "false") return false;
      out = text == "true";
      return true;
    default:
      out = text;
      return true;
  }
}

bool isNumeric(const options::OptionSpec& option) {
  return option.type == options::OptionType::integer || option.type == options::OptionType::number;
}

double asDouble(const options::OptionValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return NAN;
}

void insertValue(toml::table& table, std::string_view key, const options::OptionValue& value) {
  toml::array list;
  if (const auto* i = std::get_if<int64_t>(&value))
    list.push_back(*i);
  else if (const auto* d = std::get_if<double>(&value))
    list.push_back(*d);
  else if (const auto* b = std::get_if<bool>(&value))
    list.push_back(*b);
  else
    list.push_back(std::get<std::string>(value));
  table.insert_or_assign(key, std::move(list));
}

// The edge's point with its edge axis moved past the end; false when it has none.
bool beyondPoint(const Sweep& sweep, const SweepEdge& edge,
                 std::vector<options::OptionValue>& values) {
  const auto chosen = parseSweepLabel(edge.chosen);
  if (chosen.size() != sweep.size()) return false;
  values.clear();
  for (size_t axis = 0; axis < sweep.size(); ++axis) {
    if (chosen[axis].first != sweepLabelKey(*sweep[axis].option)) return false;
    options::OptionValue v;
    if (!typedValue(*sweep[axis].option, chosen[axis].second, v)) return false;
    values.push_back(v);
  }
  for (size_t axis = 0; axis < sweep.size(); ++axis) {
    const options::OptionSpec& option = *sweep[axis].option;
    if (!isNumeric(option)) continue;
    std::set<double> tried;
    for (const std::string& label : edge.tried) {
      const auto parsed = parseSweepLabel(label);
      options::OptionValue v;
      if (axis < parsed.size() && parsed[axis].first == chosen[axis].first &&
          typedValue(option, parsed[axis].second, v))
        tried.insert(asDouble(v));
    }
    const double at = asDouble(values[axis]);
    if (tried.size() < 2 || (at > *tried.begin() && at < *tried.rbegin())) continue;
    options::OptionValue beyond;
    if (!valueBeyondEdge(option, {tried.begin(), tried.end()}, at <= *tried.begin(), beyond))
      continue;
    values[axis] = beyond;
    return true;
  }
  return false;
}

// The rewritten TOML may list the arm's sweep options in another order than the ladder does; the
// run's label, name and point follow the ladder's order, as its grid runs' do.
PlannedRun inLadderAxisOrder(PlannedRun run, const Sweep& sweep,
                             const std::vector<options::OptionValue>& values) {
  std::string label;
  run.sweep_point.clear();
  for (size_t axis = 0; axis < sweep.size(); ++axis) {
    const options::OptionSpec& option = *sweep[axis].option;
    label += (label.empty() ? "" : "-") + sweepLabelKey(option) + sweepValueText(values[axis]);
    run.sweep_point.emplace_back(option.qualifiedKey(), values[axis]);
  }
  run.sweep_label = label;
  run.name = sweepRunName(run.arm, run.size, run.seed, label);
  run.config.name = run.name;
  return run;
}

}  // namespace

bool valueBeyondEdge(const options::OptionSpec& option, std::vector<double> values, bool low,
                     options::OptionValue& beyond) {
  if (!isNumeric(option) || values.size() < 2) return false;
  std::sort(values.begin(), values.end());
  const double end = low ? values.front() : values.back();
  const double next = low ? values[1] : values[values.size() - 2];
  const bool geometric = end > 0 && next > 0 && std::max(end, next) / std::min(end, next) >= 1.5;
  double v = geometric ? end * (end / next) : end + (end - next);
  if (option.type == options::OptionType::integer) v = std::round(v);
  v = std::clamp(v, option.min, option.max);
  if (!std::isfinite(v) || v == end) return false;
  if (option.type == options::OptionType::integer)
    beyond = static_cast<int64_t>(v);
  else
    beyond = v;
  return true;
}

std::vector<PlannedRun> sweepExtensionRuns(const LadderSpec& spec,
                                           const std::vector<SweepEdge>& edges) {
  std::vector<PlannedRun> out;
  if (spec.text.empty()) return out;
  for (const SweepEdge& edge : edges) {
    const auto sweep = spec.sweeps.find(edge.arm);
    if (sweep == spec.sweeps.end() || sweep->second.empty()) continue;
    if (std::find(spec.sizes.begin(), spec.sizes.end(), edge.size) == spec.sizes.end()) continue;
    std::vector<options::OptionValue> values;
    if (!beyondPoint(sweep->second, edge, values)) continue;

    toml::table root = parseTomlString(spec.text, spec.source);
    toml::table* arm = root["arms"][edge.arm].as_table();
    if (!arm) continue;
    if (!spec.seeds.empty())
      root["ladder"].as_table()->insert_or_assign("seeds", toml::array{spec.seeds.front()});
    arm->insert_or_assign("sizes", toml::array{edge.size});
    toml::table arm_sweep;
    for (size_t axis = 0; axis < sweep->second.size(); ++axis) {
      const options::OptionSpec& option = *sweep->second[axis].option;
      const std::string section(options::sectionName(option.section));
      if (!arm_sweep.contains(section)) arm_sweep.insert(section, toml::table{});
      insertValue(*arm_sweep[section].as_table(), option.key, values[axis]);
    }
    arm->insert_or_assign("sweep", std::move(arm_sweep));
    std::ostringstream text;
    text << root;
    try {
      const LadderSpec extended = parseLadder(text.str(), spec.source + " (sweep extension)");
      for (const PlannedRun& run : extended.runs)
        if (run.arm == edge.arm && run.size == edge.size) {
          out.push_back(inLadderAxisOrder(run, sweep->second, values));
          break;
        }
    } catch (const UserError&) {
      // The options refuse the new value (with another option, or on this rung): no candidate.
    }
  }
  return out;
}

}  // namespace deepladder::ladder
