// Run options to and from JSON, driven by the schema (see option_json.h).
#include "core/options/option_json.h"

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/nearest_word.h"
#include "core/options/option_schema.h"
#include "core/safe_text.h"

namespace deepladder::options {

namespace {

nlohmann::json jsonOf(const OptionValue& value) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

// The JSON value as the option's type; UserError naming the option otherwise.
OptionValue valueOf(const OptionSpec& spec, const nlohmann::json& j) {
  const std::string key = spec.qualifiedKey();
  auto wrong = [&]() -> OptionValue {
    throw UserError("run config JSON: " + key + ": expected " + typeDescription(spec) + ", found " +
                    std::string(j.type_name()) +
                    ". Regenerate it with 'deepladder train' or fix the field");
  };
  switch (spec.type) {
    case OptionType::integer:
      if (j.is_number_integer()) return j.get<int64_t>();
      return wrong();
    case OptionType::number:
      if (j.is_number()) return j.get<double>();
      return wrong();
    case OptionType::boolean:
      if (j.is_boolean()) return j.get<bool>();
      return wrong();
    case OptionType::string:
    case OptionType::choice:
      if (j.is_string()) return j.get<std::string>();
      return wrong();
  }
  return wrong();
}

// Sets every key of one JSON object (a section, or the top level) on `config`.
void readJsonSection(const nlohmann::json& object, Section section, RunConfig& config) {
  const std::string where = section == Section::root
                                ? std::string("the top level")
                                : "\"" + std::string(sectionName(section)) + "\"";
  for (const auto& [key, value] : object.items()) {
    if (section == Section::root && value.is_object()) continue;  // a section
    const OptionSpec* spec = findOption(section, key);
    if (!spec) {
      const std::string near = nearestKey(section, key);
      throw UserError(
          "run config JSON: unknown key \"" + shownText(key) + "\" in " + where +
          (near.empty() ? std::string(". Check the field") : ". Did you mean " + near + "?"));
    }
    spec->set(config, valueOf(*spec, value));
  }
}

}  // namespace

nlohmann::json encodeRunConfig(const RunConfig& config, bool hashed_only) {
  nlohmann::json out = nlohmann::json::object();
  for (Section section : allSections())
    if (section != Section::root) out[std::string(sectionName(section))] = nlohmann::json::object();
  for (const OptionSpec& spec : runOptionSchema()) {
    if (hashed_only && !spec.hashedIn(config)) continue;
    nlohmann::json& target =
        spec.section == Section::root ? out : out[std::string(sectionName(spec.section))];
    target[std::string(spec.key)] = jsonOf(spec.get(config));
  }
  return out;
}

RunConfig decodeRunConfig(const nlohmann::json& json) {
  if (!json.is_object())
    throw UserError("run config JSON: expected an object, found " + std::string(json.type_name()) +
                    ". Regenerate it with 'deepladder train'");
  RunConfig config;
  readJsonSection(json, Section::root, config);
  for (const auto& [key, value] : json.items()) {
    if (!value.is_object()) continue;
    Section section = Section::root;
    for (Section s : allSections())
      if (s != Section::root && sectionName(s) == key) section = s;
    if (section == Section::root) {
      std::vector<std::string> names;
      for (Section s : allSections())
        if (s != Section::root) names.emplace_back(sectionName(s));
      const std::string near = nearestWord(key, names);
      throw UserError(
          "run config JSON: unknown section \"" + shownText(key) + "\"" +
          (near.empty() ? std::string(". Check the field") : ". Did you mean " + near + "?"));
    }
    readJsonSection(value, section, config);
  }
  return config;
}

}  // namespace deepladder::options
