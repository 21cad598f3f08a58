// How a ladder's projection settled: the projected multiplier of every arm at the target, with
// its interval, after each finished run in the order the runs ended, against the compute spent
// so far. Replayed from the finished runs (each prefix refits only the share of the arm that
// changed, ladder_fit.h), and every point is cached (a "projection" entry keyed by the prefix's
// points and the options, never dropped: a prefix's projection does not change), so a ladder's
// history is computed once.
#pragma once

#include <atomic>
#include <vector>

#include "core/fit_cache_store.h"
#include "fitting/live_projection.h"

namespace deepladder::fitting {

// `table.points` in the order the runs ended (storage::ladderResults gives that order). One
// snapshot per prefix from the first run on (arms that cannot be fitted yet carry a note).
// `abort` (optional) stops early and returns what is done.
std::vector<ProjectionSnapshot> projectionHistory(const ResultsTable& table,
                                                  const FrontierOptions& options, double target,
                                                  FitCacheStore* cache, const std::string& source,
                                                  const std::atomic<bool>* abort = nullptr);

}  // namespace deepladder::fitting
