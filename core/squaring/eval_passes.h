// The test-time iteration list of squaring.eval_passes ("1..16", "1,2,4,8", "3"), parsed in core
// so the option is checked before a run is queued.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace deepladder::squaring {

// Parses eval_passes: "a..b" (inclusive), a comma list, or one number; every entry in 1..1024.
// Sorted, without repeats. Throws UserError naming squaring.eval_passes.
std::vector<int64_t> parseEvalPasses(const std::string& text);

}  // namespace deepladder::squaring
