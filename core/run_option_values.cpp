// A run's option values as text (see run_option_values.h).
#include "core/run_option_values.h"

#include <cerrno>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>

#include "core/options/option_json.h"
#include "core/options/option_schema.h"

namespace deepladder {

OptionValues schemaOptionValues(const std::string& config_json) {
  OptionValues out;
  RunConfig config;
  try {
    config =
        options::decodeRunConfig(nlohmann::json::parse(config_json.empty() ? "{}" : config_json));
  } catch (const std::exception&) {
    return out;
  }
  for (const auto& spec : options::runOptionSchema()) {
    const options::OptionValue value = spec.get(config);
    std::string text;
    if (const auto* s = std::get_if<std::string>(&value))
      text = *s;
    else if (std::holds_alternative<double>(value)) {
      text = options::formatValue(value);
      if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0)
        text.resize(text.size() - 2);  // "1" for 1.0: the TOML float spelling is noise on a plot
    } else {
      text = options::formatValue(value);
    }
    out[spec.qualifiedKey()] = std::move(text);
  }
  return out;
}

std::optional<double> optionNumber(const std::string& value) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(value.c_str(), &end);
  if (end != value.c_str() + value.size() || errno == ERANGE) return std::nullopt;
  return v;
}

}  // namespace deepladder
