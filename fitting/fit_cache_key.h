// Keys of cached fits: a SHA-256 over everything that decides a fit's numbers (the fitting code's
// version, the options, and the points, sorted so their order does not matter). Equal keys mean
// the very same fit, so a cached result is reused exactly when nothing changed.
#pragma once

#include <string>
#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

// Bumped whenever a change to fitting/ changes the numbers a fit returns: every cached fit made
// by older code then misses and is refitted.
inline constexpr int kFitCodeVersion = 1;

// Every FrontierOptions field that changes the result, as text (not `threads`: the bootstrap
// gives the same numbers on any number of threads; not `cancellation`: a cancelled fit is never
// cached).
std::string frontierOptionsKey(const FrontierOptions& options);

// The points' arm, compute and loss at full precision, sorted.
std::string pointsKey(const std::vector<RunPoint>& points);

// Hex SHA-256 of `form`, the code version and the parts.
std::string fitCacheKey(const std::string& form, const std::vector<std::string>& parts);

}  // namespace deepladder::fitting
