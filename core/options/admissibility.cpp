// A run's admissibility from its options (see admissibility.h).
#include "core/options/admissibility.h"

#include <nlohmann/json.hpp>

#include "core/options/option_schema.h"

namespace deepladder::options {

std::string Admissibility::offendingText() const {
  std::string out;
  for (const auto& key : offending) out += (out.empty() ? "" : ", ") + key;
  return out;
}

std::string Admissibility::label() const {
  return admissible ? "admissible" : "inadmissible (" + offendingText() + ")";
}

Admissibility admissibility(const RunConfig& config) {
  Admissibility out;
  for (const OptionSpec& spec : runOptionSchema()) {
    if ((spec.flags & kTaskTargets) == 0 || !spec.honouredBy(config.task)) continue;
    if (spec.isDefault(config)) continue;
    out.admissible = false;
    out.offending.push_back(spec.qualifiedKey());
  }
  return out;
}

std::optional<Admissibility> admissibilityOfConfigJson(const std::string& config_json) {
  try {
    return admissibility(runConfigFromJson(nlohmann::json::parse(config_json)));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<std::string> taskTargetOptions() {
  std::vector<std::string> keys;
  for (const OptionSpec& spec : runOptionSchema())
    if (spec.flags & kTaskTargets) keys.push_back(spec.qualifiedKey());
  return keys;
}

}  // namespace deepladder::options
