// The fits table as the FitCacheStore of core/fit_cache_store.h: cached fits are rows with a
// cache_key, found by it, and dropped by the schema's trigger when a run of one of their arms
// finishes (so whichever process finishes the run, every reader's cache follows). A cache is an
// aid: an entry that cannot be stored (a read-only or full database) is skipped, never an error
// of the command that computed the fit.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>

#include "core/fit_cache_store.h"
#include "storage/database.h"

namespace deepladder::storage {

class SqliteFitCache : public FitCacheStore {
 public:
  // ladder_id: the ladder the entries belong to (nullopt for a CSV or imported source).
  // read_only: reuse what is cached, store nothing (a database opened read-only).
  SqliteFitCache(Database& db, std::optional<int64_t> ladder_id, bool read_only = false)
      : db_(db), ladder_id_(ladder_id), read_only_(read_only) {}

  std::optional<std::string> load(const std::string& key) override { return db_.cachedFit(key); }
  void save(const CachedFitEntry& entry) override {
    if (read_only_ || !save_error_.empty()) return;
    try {
      db_.saveCachedFit(entry, ladder_id_);
    } catch (const std::exception& e) {
      save_error_ = e.what();  // the fit stands; it is only not cached
    }
  }
  // Why an entry could not be cached ("" when every save worked or none was tried).
  const std::string& saveError() const { return save_error_; }

 private:
  Database& db_;
  std::optional<int64_t> ladder_id_;
  bool read_only_;
  std::string save_error_;
};

}  // namespace deepladder::storage
