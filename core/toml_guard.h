// A guard run on TOML text before toml++ parses it, against two faults of Debian's toml++ 3.3:
// - it recurses once per part of a dotted key ("a.b.c...") and per header part ("[a.b.c...]")
//   with no limit of its own, so a key of ~40,000 parts (an 80 KB file) overflows the stack (a
//   SIGSEGV instead of an error);
// - a non-ASCII character where it expects whitespace or a bare key (U+00A1..U+0499, say) reaches
//   an "unreachable" point in its whitespace table (undefined behaviour, found by fuzzing).
// The guard scans the text once (skipping strings and comments) and refuses, with FILE:LINE, a
// dotted key or header with more than kMaxTomlKeyParts parts, arrays and inline tables nested
// more than kMaxTomlNesting deep, more than kMaxTomlDepth of both together, or a non-ASCII byte
// outside strings and comments (TOML allows none there; a leading byte order mark is fine). Real
// config files use a handful of levels.
#pragma once

#include <optional>
#include <string>

namespace deepladder {

inline constexpr int kMaxTomlKeyParts = 64;
inline constexpr int kMaxTomlNesting = 64;
inline constexpr int kMaxTomlDepth = 96;

// The problem as "SOURCE:LINE: ..." (with what to do), or std::nullopt when the text is within
// the limits. Says nothing about whether the text is valid TOML otherwise.
std::optional<std::string> tomlGuardProblem(const std::string& text, const std::string& source);

// Throws UserError with tomlGuardProblem's message when there is one.
void checkTomlGuard(const std::string& text, const std::string& source);

}  // namespace deepladder
