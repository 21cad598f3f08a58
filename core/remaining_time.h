// How long a run still needs, at its average pace so far: one rule for the terminal's progress
// lines (core/terminal_progress.h) and the workbench's run table.
#pragma once

#include <cstdint>
#include <optional>

namespace deepladder {

// Seconds left of a run at `step` of `total_steps` after `elapsed_s` seconds of training: 0 once
// step >= total_steps; nullopt while there is no pace to go by (no step yet) or no total.
inline std::optional<double> remainingSeconds(double elapsed_s, int64_t step, int64_t total_steps) {
  if (total_steps <= 0 || step <= 0) return std::nullopt;
  if (step >= total_steps) return 0.0;
  return elapsed_s / static_cast<double>(step) * static_cast<double>(total_steps - step);
}

}  // namespace deepladder
