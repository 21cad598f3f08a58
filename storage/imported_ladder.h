// Ladders trained elsewhere, stored as ladders (`deepladder import` of TensorBoard log directories
// and curves CSVs, core/import/): one ladders row whose spec is a comment saying where the runs
// came from (there is no grid to plan: `suggest` and adaptive runs refuse it), one finished run
// per imported run with its options as config JSON and its facts (arm, size, seed, final loss,
// FLOPs, params, tokens), and every curve in metrics. So `status`, the workbench, `fit`,
// backtests, `export` and `export-tb` read them as they read a ladder deepladder ran.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/import/imported_run.h"
#include "storage/database.h"

namespace deepladder::storage {

// The first line of an imported ladder's stored spec.
inline constexpr const char* kImportedSpecMarker = "# deepladder import:";

bool isImportedLadderSpec(const std::string& spec);

struct ImportedLadderSummary {
  int64_t ladder_id = 0;
  size_t runs = 0;
  size_t rows = 0;        // metric rows written
  bool replaced = false;  // an earlier import of this name was replaced
};

// Stores `runs` (with their facts, same order) as the ladder `name` in one transaction: all of it
// or, on any error, nothing. An earlier import of the same name (and a results CSV imported under
// it) is replaced; a ladder of that name that deepladder ran is refused (UserError).
ImportedLadderSummary storeImportedLadder(Database& db, const std::string& name,
                                          const std::string& origin,
                                          const std::vector<imports::ImportedRun>& runs,
                                          const std::vector<imports::ImportedRunFacts>& facts);

}  // namespace deepladder::storage
