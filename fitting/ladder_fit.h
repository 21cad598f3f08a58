// The frontier fit of a ladder, one arm at a time, cached. Every arm but the baseline is fitted
// with E fixed to the baseline's, so the ladder's fit is the union of "baseline + one arm" fits
// (and the bootstrap resamples each arm from its own stream, see frontier_fit.cpp): fitting them
// one by one gives the whole fit, and when a run finishes only its arm's share changes (all of
// them when it is a baseline run). Shares go through fitFrontier (the public entry point, so they
// follow every option there; several missing shares in one call, split per arm) and are cached
// by a key of their inputs and options: reused in memory while their points are unchanged, then
// from the FitCacheStore (the fits table), and fitted only when neither has them. With `joint` (one
// E for all arms) the ladder is one share.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/fit_cache_store.h"
#include "fitting/fit_types.h"

namespace deepladder::fitting {

// An arm left out of a lenient fit, and why (too few rungs yet, loss not decreasing, ...).
struct SkippedArm {
  std::string arm;
  std::string reason;
};

// Each arm's points in one order (compute, then loss), so equal points give equal fits whatever
// order the source listed them in: the bootstrap picks points by position.
std::map<std::string, std::vector<RunPoint>> pointsByArm(const std::vector<RunPoint>& points);

// Every arm's share of a fit of the baseline with several arms (arms[1..] in order): the
// baseline and that arm, its multipliers and its bootstrap draws. Memory linear in the whole fit.
std::vector<FrontierResult> splitIntoShares(FrontierResult whole);
// Arm `arm_index`'s share alone (splitIntoShares(whole)[arm_index - 1]).
FrontierResult shareOf(const FrontierResult& whole, size_t arm_index);

// The ladder's fit from per-arm shares (each the fit of the baseline and one arm, same options):
// the baseline's fit from the first share, every other arm's fit, multipliers and bootstrap
// draws from its own share, arms in fitFrontier's order. Shares must be non-empty.
FrontierResult assembleLadderFit(const std::vector<FrontierResult>& shares);

class LadderFitter {
 public:
  // `cache` may be null (memory only); `source` names the cache entries (the ladder's name).
  LadderFitter(FitCacheStore* cache, std::string source);

  // The points of a sweep are reduced to its envelope first (fitting/sweep_envelope.h); the
  // result carries the point each rung used and the fit's diagnostics (fit_diagnostics.h).
  // Strict (lenient = false): the same checks and UserErrors as fitFrontier on the whole table.
  // Lenient (a ladder still running): arms that cannot be fitted yet are left out and listed in
  // skipped(); throws UserError only when the baseline itself cannot be fitted.
  FrontierResult fit(const ResultsTable& table, const FrontierOptions& options, bool lenient);

  // About the last fit(): arms whose share was solved (not reused), shares read from the cache,
  // arms left out.
  const std::vector<std::string>& refitted() const { return refitted_; }
  int cacheHits() const { return cache_hits_; }
  const std::vector<SkippedArm>& skipped() const { return skipped_; }

 private:
  struct Share {
    std::string key;
    FrontierResult fit;
  };
  // fit() on the points of a sweep's envelope.
  FrontierResult fitEnvelope(const ResultsTable& table, const FrontierOptions& options,
                             bool lenient);
  // A share known under `key`: in memory, else from the cache.
  std::optional<FrontierResult> lookup(const std::string& name, const std::string& key);
  // A share just fitted: kept in memory and stored in the cache; counted as refitted.
  void store(const std::string& name, const std::string& key, const FrontierResult& fit,
             const std::vector<std::string>& arms);

  FitCacheStore* cache_;
  std::string source_;
  std::map<std::string, Share> shares_;  // by arm ("*" for a joint fit)
  std::vector<std::string> refitted_;
  int cache_hits_ = 0;
  std::vector<SkippedArm> skipped_;
};

}  // namespace deepladder::fitting
