// What the Serial-task view shows of one run, read off the GUI thread through the reader that
// `deepladder squaring eval` uses too (storage/squaring_run.h): the latest step's accuracy cells
// over (modulus bits x T) (test, OOD and depth cells pooled; the iteration sweep "<task>@r=R"
// left out), the run's squaring tier, each cell's population chance and composition ceiling,
// and whether the run is admissible under the benchmark's rules.
#pragma once

#include <cstdint>
#include <optional>

#include "core/options/admissibility.h"
#include "ui/plots/squaring_run_plot.h"

namespace deepladder::storage {
class Database;
}

namespace deepladder::ui {

// The cells (at the latest step) with the run they belong to.
struct SerialTaskData : plots::SquaringCells {
  int64_t run_id = 0;
  int64_t last_step = 0;
  // From the run's options; nullopt when its config does not read.
  std::optional<options::Admissibility> admissibility;
};

// Reads `run_id`'s evals and computes its maps; nullopt when it has no map cells. Queries and
// may regenerate the run's data (a few hundred ms for the medium tiers, cached per tier, seed
// and data directory): call it off the GUI thread.
std::optional<SerialTaskData> loadSerialTask(storage::Database& db, int64_t run_id);

}  // namespace deepladder::ui
