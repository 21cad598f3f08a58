// Run options from TOML, driven by the schema: one function applies a table of a section's keys
// (a run file's [model], a ladder's [train] defaults, a size entry, an arm's overrides) on top
// of a RunConfig, and remembers where each value came from so validate() can name the line.
#pragma once

#include <map>
#include <string>

#include "core/options/option_schema.h"
#include "core/toml_reader.h"

namespace deepladder::options {

// Where an option got its value: the file, the line and the key as written there
// ("arms.untied_grow.model.alpha").
struct OptionOrigin {
  std::string file;
  long line = 0;
  std::string key;
};

// The origin of each option set from TOML, by qualified key ("model.alpha"); later sets win.
class OptionOrigins {
 public:
  void record(const OptionSpec& spec, OptionOrigin origin);
  const OptionOrigin* find(const std::string& qualified_key) const;

 private:
  std::map<std::string, OptionOrigin> origins_;
};

// `node` (a value of `reader`'s key spec.key, or an element of its array) as the option's type;
// UserError at that key's line when the type is wrong or a choice is unknown. Ranges are not
// checked here.
OptionValue tomlOptionValue(const OptionSpec& spec, const toml::node& node,
                            const TomlReader& reader);

// Applies every key of `reader`'s table to the options of `section`. A key that is no option of
// the section is an error naming the nearest known key; a value of the wrong type (or a choice
// outside its enum) is an error at its line. Ranges and cross-field rules are validate()'s.
// For Section::root only the top-level option keys are read (tables are the caller's), and
// unknown keys are left for the caller's reader.finish().
void applyTomlSection(TomlReader& reader, Section section, RunConfig& config,
                      OptionOrigins* origins);

// A run file: top-level options, then [model], [data], [train], [squaring]; validated.
RunConfig parseRunConfigToml(const std::string& text, const std::string& source_name,
                             OptionOrigins* origins = nullptr);

}  // namespace deepladder::options
