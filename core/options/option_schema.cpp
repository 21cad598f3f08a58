// The run-option schema table, built from the X-macro lists of run_options.h (see
// option_schema.h).
#include "core/options/option_schema.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <type_traits>

#include "core/errors.h"
#include "core/nearest_word.h"

namespace deepladder::options {

namespace {

template <class T, class = void>
struct IsOptionEnum : std::false_type {};
template <class T>
struct IsOptionEnum<T, std::void_t<decltype(OptionEnum<T>::names)>> : std::true_type {};

template <class T>
constexpr OptionType optionTypeOf() {
  if constexpr (std::is_same_v<T, bool>)
    return OptionType::boolean;
  else if constexpr (std::is_same_v<T, int64_t>)
    return OptionType::integer;
  else if constexpr (std::is_same_v<T, double>)
    return OptionType::number;
  else if constexpr (std::is_same_v<T, std::string>)
    return OptionType::string;
  else {
    static_assert(IsOptionEnum<T>::value,
                  "an option's type is int64_t, double, bool, "
                  "std::string or an enum of option_enums.h");
    return OptionType::choice;
  }
}

template <class T>
OptionValue toValue(const T& value) {
  if constexpr (IsOptionEnum<T>::value)
    return enumName(value);
  else
    return OptionValue(value);
}

template <class T>
T fromValue(const OptionValue& value, const OptionSpec& spec) {
  if constexpr (IsOptionEnum<T>::value) {
    const std::string& name = std::get<std::string>(value);
    if (auto e = enumFromName<T>(name)) return *e;
    throw UserError(spec.qualifiedKey() + ": unknown value \"" + name + "\". Use " +
                    typeDescription(spec));
  } else {
    return std::get<T>(value);
  }
}

// One schema entry for the member reached by `member` (a function returning a reference).
template <class T, class Member>
OptionSpec makeSpec(Section section, std::string_view key, double min, double max,
                    std::string_view unit, unsigned flags, std::string_view help, Member member) {
  OptionSpec spec;
  spec.section = section;
  spec.key = key;
  spec.type = optionTypeOf<T>();
  spec.min = min;
  spec.max = max;
  if constexpr (IsOptionEnum<T>::value)
    for (std::string_view name : OptionEnum<T>::names) spec.choices.push_back(name);
  spec.unit = unit;
  spec.flags = flags;
  spec.help = help;
  spec.get = [member](const RunConfig& c) { return toValue<T>(member(const_cast<RunConfig&>(c))); };
  // The setter reads the spec's own copy for messages (key, choices): capture what it needs.
  OptionSpec described = spec;
  spec.set = [member, described](RunConfig& c, const OptionValue& v) {
    member(c) = fromValue<T>(v, described);
  };
  spec.default_value = spec.get(RunConfig{});
  return spec;
}

// What a ladder does to an option beside its run_options.h flags (option_schema.h's ladder
// marks): the budget turns each rung's tokens into train.steps of every run.
unsigned ladderMarks(Section section, std::string_view key) {
  return section == Section::train && key == "steps" ? kSetByBudget : 0u;
}

std::vector<OptionSpec> buildSchema() {
  std::vector<OptionSpec> out;
#define DEEPLADDER_SCHEMA_ROW(section, path, type, key, default_value, min, max, unit, flags, \
                              help)                                                           \
  out.push_back(makeSpec<type>(Section::section, #key, static_cast<double>(min),              \
                               static_cast<double>(max), unit,                                \
                               (flags) | ladderMarks(Section::section, #key), help,           \
                               [](RunConfig& c) -> type& { return c path key; }));
#define DEEPLADDER_ROOT_ROW(...) DEEPLADDER_SCHEMA_ROW(root, ., __VA_ARGS__)
#define DEEPLADDER_MODEL_ROW(...) DEEPLADDER_SCHEMA_ROW(model, .model., __VA_ARGS__)
#define DEEPLADDER_DATA_ROW(...) DEEPLADDER_SCHEMA_ROW(data, .data., __VA_ARGS__)
#define DEEPLADDER_TRAIN_ROW(...) DEEPLADDER_SCHEMA_ROW(train, .train., __VA_ARGS__)
#define DEEPLADDER_SQUARING_ROW(...) DEEPLADDER_SCHEMA_ROW(squaring, .squaring., __VA_ARGS__)
  DEEPLADDER_ROOT_OPTIONS(DEEPLADDER_ROOT_ROW)
  DEEPLADDER_MODEL_OPTIONS(DEEPLADDER_MODEL_ROW)
  DEEPLADDER_DATA_OPTIONS(DEEPLADDER_DATA_ROW)
  DEEPLADDER_TRAIN_OPTIONS(DEEPLADDER_TRAIN_ROW)
  DEEPLADDER_SQUARING_OPTIONS(DEEPLADDER_SQUARING_ROW)
#undef DEEPLADDER_ROOT_ROW
#undef DEEPLADDER_MODEL_ROW
#undef DEEPLADDER_DATA_ROW
#undef DEEPLADDER_TRAIN_ROW
#undef DEEPLADDER_SQUARING_ROW
#undef DEEPLADDER_SCHEMA_ROW
  return out;
}

}  // namespace

const std::vector<Section>& allSections() {
  static const std::vector<Section> sections = {Section::root, Section::model, Section::data,
                                                Section::train, Section::squaring};
  return sections;
}

std::string_view sectionName(Section section) {
  switch (section) {
    case Section::root:
      return "";
    case Section::model:
      return "model";
    case Section::data:
      return "data";
    case Section::train:
      return "train";
    case Section::squaring:
      return "squaring";
  }
  return "";
}

std::string OptionSpec::qualifiedKey() const {
  const std::string_view s = sectionName(section);
  return s.empty() ? std::string(key) : std::string(s) + "." + std::string(key);
}

bool OptionSpec::honouredBy(Task task) const {
  return (flags & (task == Task::squaring ? kSquaring : kLm)) != 0;
}

const std::vector<OptionSpec>& runOptionSchema() {
  static const std::vector<OptionSpec> schema = buildSchema();
  return schema;
}

const OptionSpec* findOption(Section section, std::string_view key) {
  for (const OptionSpec& spec : runOptionSchema())
    if (spec.section == section && spec.key == key) return &spec;
  return nullptr;
}

const OptionSpec* findOption(std::string_view qualified_key) {
  for (const OptionSpec& spec : runOptionSchema())
    if (spec.qualifiedKey() == qualified_key) return &spec;
  return nullptr;
}

std::string nearestKey(Section section, std::string_view key) {
  std::vector<std::string> keys;
  for (const OptionSpec& spec : runOptionSchema())
    if (spec.section == section) keys.emplace_back(spec.key);
  return nearestWord(key, keys);
}

std::string formatValue(const OptionValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const auto* s = std::get_if<std::string>(&value)) return "\"" + *s + "\"";
  // The shortest spelling that reads back as the same double.
  const double v = std::get<double>(value);
  std::string text;
  for (int precision = 6; precision <= 17; ++precision) {
    std::ostringstream out;
    out << std::setprecision(precision) << v;
    text = out.str();
    if (std::stod(text) == v) break;
  }
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";  // TOML float spelling
  return text;
}

std::string typeDescription(const OptionSpec& spec) {
  switch (spec.type) {
    case OptionType::integer:
      return "an integer";
    case OptionType::number:
      return "a number";
    case OptionType::boolean:
      return "true or false";
    case OptionType::string:
      return "a string";
    case OptionType::choice: {
      std::string out = "one of ";
      for (size_t i = 0; i < spec.choices.size(); ++i)
        out += (i ? ", \"" : "\"") + std::string(spec.choices[i]) + "\"";
      return out;
    }
  }
  return "";
}

std::string rangeDescription(const OptionSpec& spec) {
  if (spec.type != OptionType::integer && spec.type != OptionType::number) return "";
  auto show = [&](double v) {
    std::ostringstream out;
    if (spec.type == OptionType::integer) {
      if (v >= 9.2e18) return std::string("2^63-1");
      out << static_cast<int64_t>(v);
    } else {
      out << v;
    }
    return out.str();
  };
  return show(spec.min) + " to " + show(spec.max);
}

}  // namespace deepladder::options
