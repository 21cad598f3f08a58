// Sweep axes of a ladder: reading, products, labels (see sweep.h).
#include "core/ladder/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "core/errors.h"
#include "core/ladder/sweep_stop.h"
#include "core/names.h"

namespace deepladder::ladder {

namespace {

// The label keys of every option, longest first (so "beta2" is tried before "beta").
const std::vector<std::string>& labelKeysLongestFirst() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const options::OptionSpec& spec : options::runOptionSchema())
      if (spec.section != options::Section::root) out.push_back(sweepLabelKey(spec));
    std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() > b.size() : a < b;
    });
    return out;
  }();
  return keys;
}

// The label key that `text` starts with and that leaves a value after it; "" when none.
std::string leadingLabelKey(const std::string& text) {
  for (const std::string& key : labelKeysLongestFirst())
    if (text.size() > key.size() && text.compare(0, key.size(), key) == 0) return key;
  return "";
}

void readSectionAxes(TomlReader& section_table, options::Section section, Sweep& out) {
  for (const std::string& key : section_table.keys()) {
    const options::OptionSpec* spec = options::findOption(section, key);
    if (!spec) {
      const std::string near = options::nearestKey(section, key);
      section_table.fail(
          key, "unknown option of [" + std::string(options::sectionName(section)) + "] to sweep",
          near.empty() ? "see `deepladder options` for the options a sweep can name"
                       : "did you mean " + near + "?");
    }
    if (spec->qualifiedKey() == "train.seed")
      section_table.fail(key, "seeds are not swept here",
                         "list them in [ladder] seeds = [..]: every point runs every seed");
    section_table.skip(key);
    const toml::node* node = section_table.raw().get(key);
    const toml::array* list = node->as_array();
    if (!list)
      section_table.fail(key, "expected a list of values, found " + tomlTypeName(*node),
                         "write " + key + " = [v1, v2, ...]");
    if (list->empty())
      section_table.fail(key, "the list of values is empty",
                         "list at least one value, e.g. [0.5, 1, 2]");
    SweepAxis axis;
    axis.option = spec;
    axis.file = section_table.file();
    axis.line = section_table.lineOf(key);
    axis.key = section_table.qualified(key);
    std::set<std::string> spelled;
    for (const toml::node& element : *list) {
      options::OptionValue value = options::tomlOptionValue(*spec, element, section_table);
      if (spec->type == options::OptionType::integer || spec->type == options::OptionType::number) {
        const double v = spec->type == options::OptionType::integer
                             ? static_cast<double>(std::get<int64_t>(value))
                             : std::get<double>(value);
        if (!(v >= spec->min && v <= spec->max))
          section_table.fail(key,
                             "value " + options::formatValue(value) + " is outside the range of " +
                                 spec->qualifiedKey(),
                             "use values from " + options::rangeDescription(*spec));
      }
      const std::string text = sweepValueText(value);
      if (nameProblem(text))
        section_table.fail(
            key, "the value " + options::formatValue(value) + " cannot be part of a run name",
            "sweep values whose spelling uses only A-Z a-z 0-9 . _ + -");
      if (!spelled.insert(text).second)
        section_table.fail(key, "the value " + options::formatValue(value) + " appears twice",
                           "list each value once: two points alike would share one directory");
      axis.values.push_back(std::move(value));
    }
    out.push_back(std::move(axis));
  }
  section_table.finish();
}

}  // namespace

Sweep readSweep(TomlReader table) {
  Sweep out;
  for (const std::string& key : table.keys()) {
    if (isSweepStopKey(key)) continue;  // the ladder's early stopping (sweep_stop.h)
    bool is_section = false;
    for (options::Section section : options::allSections()) {
      if (section == options::Section::root || options::sectionName(section) != key) continue;
      is_section = true;
      if (!table.raw().get(key)->is_table())
        table.fail(key, "expected a table of options, found " + tomlTypeName(*table.raw().get(key)),
                   "write " + key + ".OPTION = [v1, v2, ...]");
      TomlReader section_table = table.table(key);
      readSectionAxes(section_table, section, out);
    }
    if (!is_section)
      table.fail(key,
                 options::findOption(key)
                     ? "a top-level option cannot be swept"
                     : "a sweep names options by section, and \"" + key + "\" is no section",
                 "write e.g. train.lr_mult = [0.25, 0.5, 1, 2] (sections: model, data, train, "
                 "squaring)");
  }
  table.finish();
  return out;
}

Sweep overrideSweep(const Sweep& ladder, const Sweep& arm) {
  Sweep out = ladder;
  for (const SweepAxis& axis : arm) {
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const SweepAxis& a) { return a.option == axis.option; });
    if (same != out.end())
      *same = axis;
    else
      out.push_back(axis);
  }
  return out;
}

std::vector<SweepPoint> sweepPoints(const Sweep& sweep) {
  std::vector<SweepPoint> points(1);
  for (const SweepAxis& axis : sweep) {
    std::vector<SweepPoint> next;
    for (const SweepPoint& p : points)
      for (const options::OptionValue& v : axis.values) {
        SweepPoint q = p;
        q.values.push_back(v);
        q.label += (q.label.empty() ? "" : "-") + sweepLabelKey(*axis.option) + sweepValueText(v);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

double sweepPointCount(const Sweep& sweep) {
  double points = 1;
  for (const SweepAxis& axis : sweep) points *= double(axis.values.size());
  return points;
}

void applySweepPoint(const Sweep& sweep, const SweepPoint& point, RunConfig& config,
                     options::OptionOrigins* origins) {
  for (size_t i = 0; i < sweep.size(); ++i) {
    sweep[i].option->set(config, point.values.at(i));
    if (origins) origins->record(*sweep[i].option, {sweep[i].file, sweep[i].line, sweep[i].key});
  }
}

double sweepValueNumber(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return (!text.empty() && end && *end == '\0') ? v : std::nan("");
}

std::string sweepValueText(const options::OptionValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  std::string text = options::formatValue(value);
  if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
  return text;
}

std::string sweepLabelKey(const options::OptionSpec& option) {
  for (const options::OptionSpec& other : options::runOptionSchema())
    if (&other != &option && other.key == option.key) {
      std::string qualified = option.qualifiedKey();
      return qualified;
    }
  return std::string(option.key);
}

std::string describeSweep(const Sweep& sweep) {
  std::string out;
  for (const SweepAxis& axis : sweep) {
    out += (out.empty() ? "" : "; ") + axis.option->qualifiedKey() + " =";
    for (size_t i = 0; i < axis.values.size(); ++i)
      out += (i ? ", " : " ") + sweepValueText(axis.values[i]);
  }
  return out;
}

std::string sweepRunName(const std::string& arm, const std::string& size, int64_t seed,
                         const std::string& label) {
  std::string name = arm + "-" + size + "-s" + std::to_string(seed);
  if (!label.empty()) name += "-" + label;
  return name;
}

std::string sweepLabelOfRunName(const std::string& name, const std::string& arm,
                                const std::string& size, int64_t seed) {
  const std::string base = sweepRunName(arm, size, seed, "");
  if (name.size() <= base.size() + 1 || name.compare(0, base.size(), base) != 0 ||
      name[base.size()] != '-')
    return "";
  const std::string label = name.substr(base.size() + 1);
  return leadingLabelKey(label).empty() ? "" : label;
}

std::vector<std::pair<std::string, std::string>> parseSweepLabel(const std::string& label) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start < label.size()) {
    const std::string key = leadingLabelKey(label.substr(start));
    if (key.empty()) break;  // not a label of ours: nothing more to read
    size_t value_start = start + key.size();
    // The value runs to the next "-KEY" that leaves a value (a value's own '-', as in 1e-05 or
    // -1, is followed by a digit).
    size_t end = value_start + 1;
    while (end < label.size()) {
      if (label[end] == '-' && !leadingLabelKey(label.substr(end + 1)).empty()) break;
      ++end;
    }
    out.emplace_back(key, label.substr(value_start, end - value_start));
    start = end + 1;
  }
  return out;
}

}  // namespace deepladder::ladder
