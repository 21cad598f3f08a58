// What the Serial-task view shows of one run, read off the GUI thread through the reader that
// `deepladder squaring eval` uses too (storage/squaring_run.h): the latest step's accuracy cells
// over (modulus bits x T) (test, OOD and depth cells pooled; the iteration sweep "<task>@r=R"
// left out), the run's squaring tier, each cell's population chance and composition ceiling,
// and whether the run is admissible under the benchmark's rules.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/options/admissibility.h"
#include "core/squaring/run_maps.h"
#include "core/squaring/tiers.h"

namespace deepladder::storage {
class Database;
}

namespace deepladder::ui {

struct SerialTaskData {
  int64_t run_id = 0;
  int64_t last_step = 0;
  // (bits, T) -> (correct, total) at the latest step.
  std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>> cells;
  std::vector<int64_t> bits;                   // ascending
  std::vector<int64_t> ts;                     // ascending
  const squaring::TierPreset* tier = nullptr;  // the run's tier; nullptr when it names none
  std::optional<squaring::RunMaps> maps;       // chance and ceiling of each cell
  // From the run's options; nullopt when its config does not read.
  std::optional<options::Admissibility> admissibility;

  // True when (bits, T) lies outside the tier's training moduli or T (false without a tier).
  bool outOfDistribution(int64_t b, int64_t t) const;
  // True when the tier never trained on `b`-bit moduli.
  bool unseenBits(int64_t b) const;
};

// Reads `run_id`'s evals and computes its maps; nullopt when it has no map cells. Queries and
// may regenerate the run's data (a few hundred ms for the medium tiers, cached per tier, seed
// and data directory): call it off the GUI thread.
std::optional<SerialTaskData> loadSerialTask(storage::Database& db, int64_t run_id);

}  // namespace deepladder::ui
