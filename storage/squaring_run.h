// One squaring run's evals at one step and what they show, read the same way by `deepladder
// squaring eval` and the workbench's Serial-task view: that step's rows by task, the cells over
// (modulus bits, T) with test, OOD and depth pooled, the accuracy maps with each cell's
// population chance and composition ceiling (core/squaring/run_maps.h), the accuracy against
// test-time iterations (tasks "<task>@r=R"), and whether the run is admissible under the
// benchmark's rules (core/options/admissibility.h). A run's data is regenerated from its tier
// and data_seed, or read from squaring.data_dir (core/squaring/run_dataset.h), once per (tier,
// seed, directory) in a process. Qt-free.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/options/admissibility.h"
#include "core/run_config.h"
#include "core/squaring/baselines.h"
#include "core/squaring/run_maps.h"
#include "core/squaring/tiers.h"
#include "storage/database.h"

namespace deepladder::storage {

using CellKey = std::pair<int64_t, int64_t>;      // (bits, T), or (r, T) in a set's sweep
using CellTally = std::pair<int64_t, int64_t>;    // (correct, total)
using SetAndT = std::pair<std::string, int64_t>;  // ("test", 8): an iteration-sweep column

// Exact match against test-time iterations r: r -> (set, T) -> (correct, total), all moduli
// sizes pooled; `columns` is every (set, T) that has a cell at some r.
struct IterationSweep {
  std::map<int64_t, std::map<SetAndT, CellTally>> cells;
  std::set<SetAndT> columns;
};

struct SquaringRunRead {
  RunRecord run;
  std::optional<RunConfig> config;                           // storedRunConfig below
  int64_t step = -1;                                         // the step read
  std::map<std::string, std::vector<EvalRow>> rows_by_task;  // that step's rows, sweep included
  std::map<CellKey, CellTally> cells;  // (bits, T) over test, OOD and depth (sweep left out)
  std::vector<int64_t> bits, ts;       // ascending, those of `cells`
  IterationSweep iteration_sweep;
  std::optional<options::Admissibility> admissibility;  // nullopt with the config
  // From the config's tier and data; unset when the config names no tier, and then
  // maps_error says why when it was a tier whose data did not read.
  const squaring::TierPreset* tier = nullptr;
  std::shared_ptr<const squaring::TierDataset> data;
  std::optional<squaring::RunMaps> maps;
  std::string maps_error;
};

// The run's evals at `step` (-1: the latest step that has any). nullopt when the run is not in
// the database or has no evals at that step.
std::optional<SquaringRunRead> readSquaringRun(Database& db, int64_t run_id, int64_t step = -1);

// The run's data (see above), shared by every reader in this process.
std::shared_ptr<const squaring::TierDataset> squaringRunData(const SquaringConfig& config);

// Population chance and composition ceiling of the run's test and OOD sets, cached like its data.
std::pair<squaring::SetBaselines, squaring::SetBaselines> testAndOodBaselines(
    const SquaringConfig& config);

// The stored config of a run, or nullopt when its JSON does not read as one. Decoded without
// validation: it was validated when its run was queued, and a reader takes what it says (a
// config that a later deepladder's rules would refuse still names its tier and data).
std::optional<RunConfig> storedRunConfig(const RunRecord& run);

}  // namespace deepladder::storage
