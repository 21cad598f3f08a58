// Run configuration entry points (see run_config.h): run files, JSON and the config hash, all
// driven by the option schema (core/options/).
#include "core/run_config.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/options/option_json.h"
#include "core/options/option_toml.h"
#include "core/options/validate.h"

namespace deepladder {

int64_t ModelConfig::mlpHidden() const {
  if (mlp_hidden > 0) return mlp_hidden;
  if (mlp == MlpKind::swiglu) return 256 * ((8 * d_model / 3 + 255) / 256);
  return 4 * d_model;
}

RunConfig parseRunConfigToml(const std::string& text, const std::string& source_name) {
  return options::parseRunConfigToml(text, source_name);
}

RunConfig loadRunConfigToml(const std::string& path) {
  return parseRunConfigToml(readTextFile(path), path);
}

nlohmann::json toJson(const RunConfig& config) {
  return options::encodeRunConfig(config, false);
}

RunConfig runConfigFromJson(const nlohmann::json& json) {
  RunConfig config = options::decodeRunConfig(json);
  options::validateRunConfig(config, "run config JSON");
  return config;
}

std::string configHash(const RunConfig& config) {
  const std::string canonical = options::encodeRunConfig(config, true).dump();
  uint64_t hash = 1469598103934665603ull;  // FNV-1a 64
  for (unsigned char ch : canonical) {
    hash ^= ch;
    hash *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
  return out;
}

}  // namespace deepladder
