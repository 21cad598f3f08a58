// Putting a planned ladder into the database: the ladder row (spec text + hash) and one queued
// run per planned run, each with its config written to its own work directory. Idempotent: the
// same spec again adds nothing (finished runs are kept; failed ones are queued again); a changed
// spec is a new ladder, and the caller is told so.
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

// work_root: runs go to <work_root>/<ladder>-<hash>/<run name>/.
EnqueueResult enqueueLadder(Database& db, const ladder::LadderSpec& spec,
                            const std::string& work_root);

}  // namespace deepladder::storage
