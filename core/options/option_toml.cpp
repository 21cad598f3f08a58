// Run options from TOML (see option_toml.h).
#include "core/options/option_toml.h"

#include <cmath>

#include "core/errors.h"
#include "core/options/validate.h"

namespace deepladder::options {

// The node as the option's type; UserError at the node's line otherwise.
OptionValue tomlOptionValue(const OptionSpec& spec, const toml::node& node,
                            const TomlReader& reader) {
  const std::string key(spec.key);
  auto wrong = [&]() -> OptionValue {
    reader.fail(key, "expected " + typeDescription(spec) + ", found " + tomlTypeName(node));
  };
  switch (spec.type) {
    case OptionType::integer:
      if (auto i = node.value_exact<int64_t>()) return *i;
      // 1e6 written as a float is fine for a count.
      if (auto d = node.value_exact<double>(); d && std::floor(*d) == *d && std::abs(*d) < 9e18)
        return static_cast<int64_t>(*d);
      if (auto d = node.value_exact<double>())
        reader.fail(key, "expected an integer, found the number " + formatValue(*d));
      return wrong();
    case OptionType::number:
      if (auto d = node.value_exact<double>()) return *d;
      if (auto i = node.value_exact<int64_t>()) return static_cast<double>(*i);
      return wrong();
    case OptionType::boolean:
      if (auto b = node.value_exact<bool>()) return *b;
      return wrong();
    case OptionType::string:
      if (auto s = node.value_exact<std::string>()) return *s;
      return wrong();
    case OptionType::choice:
      if (auto s = node.value_exact<std::string>()) {
        for (std::string_view choice : spec.choices)
          if (choice == *s) return *s;
        reader.fail(key, "unknown value \"" + *s + "\"", "use " + typeDescription(spec));
      }
      return wrong();
  }
  return wrong();
}

void OptionOrigins::record(const OptionSpec& spec, OptionOrigin origin) {
  origins_[spec.qualifiedKey()] = std::move(origin);
}

const OptionOrigin* OptionOrigins::find(const std::string& qualified_key) const {
  auto it = origins_.find(qualified_key);
  return it == origins_.end() ? nullptr : &it->second;
}

void applyTomlSection(TomlReader& reader, Section section, RunConfig& config,
                      OptionOrigins* origins) {
  for (const std::string& key : reader.keys()) {
    const OptionSpec* spec = findOption(section, key);
    if (!spec) {
      if (section == Section::root) continue;  // a table, or the caller's unknown key
      const std::string near = nearestKey(section, key);
      reader.fail(key, "unknown key in [" + std::string(sectionName(section)) + "]",
                  near.empty() ? "see `deepladder options` for the keys of [" +
                                     std::string(sectionName(section)) + "]"
                               : "did you mean " + near + "?");
    }
    reader.skip(key);
    spec->set(config, tomlOptionValue(*spec, *reader.raw().get(key), reader));
    if (origins) origins->record(*spec, {reader.file(), reader.lineOf(key), reader.qualified(key)});
  }
  if (section == Section::root)
    for (const OptionSpec& spec : runOptionSchema())
      if (spec.section == Section::root) reader.expect(std::string(spec.key));
}

RunConfig parseRunConfigToml(const std::string& text, const std::string& source_name,
                             OptionOrigins* origins) {
  toml::table root = parseTomlString(text, source_name);
  TomlReader reader(root, source_name);
  OptionOrigins local;
  OptionOrigins& where = origins ? *origins : local;
  RunConfig config;
  applyTomlSection(reader, Section::root, config, &where);
  for (Section section : allSections()) {
    if (section == Section::root) continue;
    TomlReader table = reader.table(std::string(sectionName(section)));
    applyTomlSection(table, section, config, &where);
  }
  reader.finish();
  validateRunConfig(config, source_name, &where);
  return config;
}

}  // namespace deepladder::options
