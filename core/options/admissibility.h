// Whether a run's results are admissible under the serial benchmark's rules (One Layer Deeper:
// any model, optimizer, schedule and loss, but no training targets made by running the task's
// own algorithm). Derived from the run's options alone: every option the schema flags
// kTaskTargets (core/options/run_options.h) that the run's task honours and that is off its
// default makes the run inadmissible. Shown beside every squaring score (`squaring eval`,
// `status`, export tables, plots, the workbench's serial-task view).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/run_config.h"

namespace deepladder::options {

struct Admissibility {
  bool admissible = true;
  std::vector<std::string> offending;  // qualified keys, e.g. "squaring.deep_supervision"

  // "admissible", or "inadmissible (squaring.deep_supervision)".
  std::string label() const;
  // The offending keys joined by ", " ("" when admissible).
  std::string offendingText() const;
};

Admissibility admissibility(const RunConfig& config);

// From a run's stored config JSON (runs.config_json); nullopt when it does not read as a config.
std::optional<Admissibility> admissibilityOfConfigJson(const std::string& config_json);

// The qualified keys of every option flagged kTaskTargets, in schema order.
std::vector<std::string> taskTargetOptions();

}  // namespace deepladder::options
