// The run-option schema: one entry per option of core/options/run_options.h, with its section,
// type (or enum choices), default, range, unit, help and flags, and typed access to the option
// inside a RunConfig. Everything that reads, writes, checks or documents run options walks this
// table: the TOML reader (run files, ladder defaults, sizes and arm overrides), the JSON encoder
// and decoder, the config hash, validate()'s range checks, `deepladder options`, docs/options.md's
// reference and the designer form.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/run_config.h"

namespace deepladder::options {

enum class Section { root, model, data, train, squaring };
enum class OptionType { integer, number, boolean, string, choice };

// The sections of a run file in file order, and their TOML table names ("" for the top level).
const std::vector<Section>& allSections();
std::string_view sectionName(Section section);

// A value as TOML and JSON spell it: enums are their names (a choice option's value is a string).
using OptionValue = std::variant<int64_t, double, bool, std::string>;

// Marks the schema adds to an option's flags (OptionFlag, core/options/run_options.h) for what a
// ladder does to it. kSetByBudget: a ladder's [budget] (or its recipe) sets the option of every
// run from its rung's tokens, so a ladder cannot sweep it (core/ladder/sweep_conflicts.h).
inline constexpr unsigned kSetByBudget = 128u;

struct OptionSpec {
  Section section = Section::root;
  std::string_view key;  // "d_model"
  OptionType type = OptionType::integer;
  double min = 0, max = 0;                // integer and number options
  std::vector<std::string_view> choices;  // choice options, in enum order
  std::string_view unit;
  unsigned flags = 0;  // OptionFlag bits
  std::string_view help;
  OptionValue default_value;
  std::function<OptionValue(const RunConfig&)> get;
  // Stores `value`; throws UserError when a choice is not one of `choices` (a type mismatch is
  // a programming error: values come from parseTomlValue / parseJsonValue, which check types).
  std::function<void(RunConfig&, const OptionValue&)> set;

  std::string qualifiedKey() const;  // "model.d_model", or "name" at the top level
  bool hashed() const { return (flags & kHashed) != 0; }
  // Whether the option enters the hash of `config` (kHashedOffDefault: only off its default).
  bool hashedIn(const RunConfig& config) const {
    return hashed() && ((flags & kOnlyOffDefault) == 0 || !isDefault(config));
  }
  bool honouredBy(Task task) const;
  bool isDefault(const RunConfig& config) const { return get(config) == default_value; }
};

// Every run option, in declaration order (sections in file order).
const std::vector<OptionSpec>& runOptionSchema();

// nullptr when the section has no such key.
const OptionSpec* findOption(Section section, std::string_view key);
// "model.d_model" or "name"; nullptr when unknown.
const OptionSpec* findOption(std::string_view qualified_key);

// The known key of `section` closest to a misspelled one (edit distance), or "" when none is
// close enough to be a plausible typo.
std::string nearestKey(Section section, std::string_view key);

// The option's type in words ("integer", "one of \"gelu\", \"swiglu\"") and a value in TOML
// spelling ("1e-3", "\"swiglu\"", "true"), for messages and docs.
std::string typeDescription(const OptionSpec& spec);
std::string formatValue(const OptionValue& value);
// The allowed range of a numeric option in words ("1 to 65536"); "" for other types.
std::string rangeDescription(const OptionSpec& spec);

}  // namespace deepladder::options
