// Run ids as a user types them (`cancel 12`, `metrics 12`, `plot --run 12`): decimal digits for a
// number in 1 .. 2^63-1. A number out of that range is refused with a message naming it, never
// wrapped, clamped to the largest id, or left to a raw library error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace deepladder {

// Why `text` is not a run id ("" when it is one).
std::string runIdProblem(const std::string& text);

// The run id `text` names; throws UserError when runIdProblem says why not.
int64_t parseRunId(const std::string& text);

// True when `text` is all decimal digits (a run id, or one out of range), not a name.
bool looksLikeRunId(const std::string& text);

}  // namespace deepladder
