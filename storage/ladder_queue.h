// Putting a planned ladder into the database: the ladder row (spec text + hash) and one queued
// run per planned run, each with its config written to its own work directory. Idempotent: the
// same spec again adds nothing (finished runs are kept; failed ones are queued again); a changed
// spec is a new ladder, and the caller is told so. Single runs can be added to a ladder later
// (an adaptive ladder buys them one at a time).
#pragma once

#include <cstdint>
#include <string>

#include "core/ladder/ladder_spec.h"
#include "storage/database.h"

namespace deepladder::storage {

struct EnqueueResult {
  int64_t ladder_id = 0;
  bool new_ladder = false;
  bool changed_spec = false;  // a ladder of this name with another spec exists
  int runs_added = 0;
  int runs_requeued = 0;  // failed runs queued again
  int runs_finished = 0;  // already done, kept
};

// Where runs go by default: deepladder-work beside the database (absolute).
std::string defaultWorkRoot(const std::string& db_path);

// The ladder's work directory: <work_root>/<ladder>-<hash8>.
std::string ladderWorkDir(const ladder::LadderSpec& spec, const std::string& work_root);

// work_root: runs go to <work_root>/<ladder>-<hash>/<run name>/. queue_grid = false: only the
// ladder row (an adaptive ladder queues its runs one at a time with enqueueRun).
EnqueueResult enqueueLadder(Database& db, const ladder::LadderSpec& spec,
                            const std::string& work_root, bool queue_grid = true);

// One planned run queued into ladder `ladder_id`, its config written to
// <ladder_dir>/<run name>/config.json. A run of that name in the ladder that failed or was
// cancelled is queued again instead of added. Returns the run's id.
int64_t enqueueRun(Database& db, int64_t ladder_id, const std::string& ladder_dir,
                   const ladder::PlannedRun& planned);

}  // namespace deepladder::storage
