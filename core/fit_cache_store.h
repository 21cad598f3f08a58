// Where fitted results are cached, as an interface: the fits table implements it (storage/
// fit_cache.h), fitting uses it (fitting/ladder_fit.h), tests implement it in memory. An entry is
// found by its key alone: a hash of everything that went into the fit (the points and the
// options), so a stale entry can never be returned, only left unused. Keeps fitting and storage
// apart, like core/scheduler/run_store.h does for the scheduler.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace deepladder {

struct CachedFitEntry {
  std::string key;                 // hash of the inputs and options (fitting/fit_cache_key.h)
  std::string source;              // ladder name or file the points came from
  std::string arm;                 // the arm it is the fit of ("" when not one arm's)
  std::vector<std::string> arms;   // arms whose runs went in: a run of one of them that
                                   // finishes drops the entry; empty = never dropped
  std::string form;                // what kind of result ("frontier", "projection", ...)
  std::string params_json = "{}";  // a readable summary (fitted parameters)
  std::string result_json;         // the whole result, enough to rebuild it
};

class FitCacheStore {
 public:
  virtual ~FitCacheStore() = default;
  // The result_json stored under `key`, if any.
  virtual std::optional<std::string> load(const std::string& key) = 0;
  // Stores (or replaces) the entry under entry.key.
  virtual void save(const CachedFitEntry& entry) = 0;
};

}  // namespace deepladder
