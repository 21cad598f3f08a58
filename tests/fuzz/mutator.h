// Deterministic mutation of fuzz inputs: from seed files and a seeded generator, mutants made by
// bit flips, interesting bytes and integers, deleted, duplicated and spliced ranges, truncation,
// and tokens from a per-parser dictionary (TOML brackets and dotted keys, CSV separators, JSON
// fragments, huge and non-finite numbers, invalid UTF-8). The same seed gives the same mutants.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace deepladder::fuzz {

class Mutator {
 public:
  Mutator(std::vector<std::string> seeds, std::vector<std::string> dictionary, uint64_t seed);

  // The next mutant: a seed with 1 to 4 mutations applied.
  std::string next();

 private:
  void mutateOnce(std::string& bytes);
  size_t position(const std::string& bytes, bool inclusive_end);

  std::vector<std::string> seeds_;
  std::vector<std::string> dictionary_;
  std::mt19937_64 random_;
};

// Tokens that tend to break each kind of input (see mutator.cpp).
std::vector<std::string> dictionaryFor(const std::string& parser);

}  // namespace deepladder::fuzz
