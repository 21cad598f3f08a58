// One training run's complete configuration: model shape, data, optimizer and schedule, cadences.
// The members, their defaults, ranges and docs are declared once, in core/options/run_options.h;
// this header turns those lists into structs. Read from a TOML file or from the JSON the CLI
// hands the worker (both validated by core/options/validate.h). Qt-free: the worker links it.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/options/run_options.h"

namespace deepladder {

#define DEEPLADDER_DECLARE_OPTION(type, key, default_value, min, max, unit, flags, help) \
  type key = default_value;

struct ModelConfig {
  DEEPLADDER_MODEL_OPTIONS(DEEPLADDER_DECLARE_OPTION)

  // Hidden width: gelu 4 d; swiglu 256 ceil(floor(8 d / 3) / 256); or mlp_hidden when set.
  int64_t mlpHidden() const;
};

struct DataConfig {
  DEEPLADDER_DATA_OPTIONS(DEEPLADDER_DECLARE_OPTION)
};

struct TrainConfig {
  DEEPLADDER_TRAIN_OPTIONS(DEEPLADDER_DECLARE_OPTION)
};

// The serial task (repeated squaring mod a semiprime, core/squaring/): data tier and the
// recurrent-depth training recipes. Used when RunConfig::task == "squaring".
struct SquaringConfig {
  DEEPLADDER_SQUARING_OPTIONS(DEEPLADDER_DECLARE_OPTION)
};

struct RunConfig {
  DEEPLADDER_ROOT_OPTIONS(DEEPLADDER_DECLARE_OPTION)
  ModelConfig model;
  DataConfig data;
  TrainConfig train;
  SquaringConfig squaring;
};

#undef DEEPLADDER_DECLARE_OPTION

// Reads and validates a run TOML file. Throws UserError (file:line: key: problem. hint).
RunConfig loadRunConfigToml(const std::string& path);
RunConfig parseRunConfigToml(const std::string& text, const std::string& source_name);

// Every option, by section: {"name", "task", "model": {...}, "data": {...}, ...}.
nlohmann::json toJson(const RunConfig& config);
// Unknown sections and keys, wrong types and invalid configs are refused (UserError). Missing
// keys keep their defaults.
RunConfig runConfigFromJson(const nlohmann::json& json);

// Stable hex hash of the canonical JSON of the hashed options (those that change what a run
// computes; not threads, device or cadences), so a checkpoint is resumed only by its own run.
std::string configHash(const RunConfig& config);

}  // namespace deepladder
