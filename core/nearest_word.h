// "Did you mean ...?": the candidate closest to a misspelled word by edit distance, for the
// messages about unknown keys, options and subcommands.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace deepladder {

// Levenshtein distance (insertions, deletions, substitutions).
size_t editDistance(std::string_view a, std::string_view b);

// The closest candidate, or "" when none is a plausible typo (more than a third of the word's
// letters would have to change).
std::string nearestWord(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace deepladder
