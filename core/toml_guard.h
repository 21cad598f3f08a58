// A guard run on TOML text before toml++ parses it. Debian's toml++ 3.3 recurses once per part
// of a dotted key ("a.b.c...") and per header part ("[a.b.c...]") with no limit of its own, so a
// key of ~40,000 parts (an 80 KB file) overflows the stack: a SIGSEGV instead of an error. The
// guard scans the text once (skipping strings and comments) and refuses, with FILE:LINE, a
// dotted key or header with more than kMaxTomlKeyParts parts, arrays and inline tables nested
// more than kMaxTomlNesting deep, or more than kMaxTomlDepth of both together. Real config files
// use a handful of each.
#pragma once

#include <optional>
#include <string>

namespace deepladder {

inline constexpr int kMaxTomlKeyParts = 64;
inline constexpr int kMaxTomlNesting = 64;
inline constexpr int kMaxTomlDepth = 96;

// The problem as "SOURCE:LINE: ..." (with what to do), or std::nullopt when the text is within
// the limits. Says nothing about whether the text is valid TOML otherwise.
std::optional<std::string> tomlNestingProblem(const std::string& text, const std::string& source);

// Throws UserError with tomlNestingProblem's message when there is one.
void checkTomlNesting(const std::string& text, const std::string& source);

}  // namespace deepladder
