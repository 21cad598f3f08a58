// An in-memory FitCacheStore for the tests: a map from key to entry, with counts of loads, hits
// and saves, and the fits table's rule for a finished run (drop the entries of its arm).
#pragma once

#include <algorithm>
#include <map>
#include <string>

#include "core/fit_cache_store.h"

namespace deepladder::fitting::testing {

class MemoryFitCache : public FitCacheStore {
 public:
  std::optional<std::string> load(const std::string& key) override {
    ++loads;
    const auto it = entries.find(key);
    if (it == entries.end()) return std::nullopt;
    ++hits;
    return it->second.result_json;
  }
  void save(const CachedFitEntry& entry) override {
    ++saves;
    entries[entry.key] = entry;
  }
  // What the fits table does when a run of `arm` finishes.
  void runFinished(const std::string& arm) {
    for (auto it = entries.begin(); it != entries.end();) {
      const auto& arms = it->second.arms;
      if (std::find(arms.begin(), arms.end(), arm) != arms.end())
        it = entries.erase(it);
      else
        ++it;
    }
  }
  std::map<std::string, CachedFitEntry> entries;
  int loads = 0, hits = 0, saves = 0;
};

}  // namespace deepladder::fitting::testing
