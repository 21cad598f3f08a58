// Recovering what a dead scheduler never wrote: the worker appends every protocol line it sends
// to <run workdir>/protocol.jsonl itself (protocol::kWorkerLogName), so lines that were
// still in a pipe or an unflushed batch when the scheduler was killed are on disk. Before a run
// is resumed, its log is replayed into the database: metrics, evals, lens rows and checkpoints
// only (status-changing messages are the live attempt's business), as idempotent upserts.
#pragma once

#include <cstdint>
#include <string>

#include "storage/database.h"

namespace deepladder::storage {

// Replays `path` (missing file: nothing to do) into run `run_id`; returns the lines applied.
int64_t replayWorkerLog(Database& db, int64_t run_id, const std::string& path);

}  // namespace deepladder::storage
