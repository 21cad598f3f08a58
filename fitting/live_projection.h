// The projected multiplier of every arm at a target compute, kept current while a ladder runs:
// refresh() is called with the ladder's finished runs (final losses only, no metrics) each time
// one ends and refits just the share of the arm whose points changed (ladder_fit.h), reusing the
// rest from memory or the fits table. Used by `deepladder run`, `watch` and the workbench.
#pragma once

#include <string>
#include <vector>

#include "core/fit_cache_store.h"
#include "fitting/fit_types.h"
#include "fitting/ladder_fit.h"

namespace deepladder::fitting {

// One arm's projected multiplier at the target (NaN with a note when it cannot be fitted yet).
struct ArmProjection {
  std::string arm;
  double multiplier = kNaN;  // M(target) from the point fit
  double lo = kNaN;          // prediction interval of M(target) (fit + misfit); NaN: none
  double hi = kNaN;
  int points = 0;        // finished runs of the arm
  std::string note;      // why there is no projection ("" when there is one)
  double fit_lo = kNaN;  // fit interval: bootstrap percentile (1-level)/2 of M(target)
  double fit_hi = kNaN;  // fit interval: bootstrap percentile (1+level)/2 of M(target)
};

struct ProjectionSnapshot {
  double target = kNaN;               // baseline compute the multipliers are projected to
  int runs = 0;                       // finished runs fitted
  double compute_spent = 0.0;         // sum of their training FLOPs
  std::string baseline;               // the baseline arm ("" until it can be fitted)
  std::string baseline_note;          // why nothing could be fitted ("" when the baseline was)
  std::vector<ArmProjection> arms;    // every non-baseline arm with runs, by name
  std::vector<std::string> refitted;  // shares solved by this refresh (not reused)
};

// The live projection's fit options: `options` with `target` added to `at` when it lacks it (the
// interval is computed there) and the residual bootstrap on (FrontierOptions::residual_bootstrap).
// Why residuals: over 200 simulated fixed grids with the published ladder's laws and scatter
// (tests/bench/live_ladder_bench --fixed-designs), intervals from resampled runs covered the true
// M(1e26) in 98.5% (nominal 95%: too wide), intervals from resampled residuals in 94.0%, 1.44x
// narrower. `deepladder fit` keeps the paper's run bootstrap.
FrontierOptions projectionOptions(FrontierOptions options, double target);

class LiveProjection {
 public:
  LiveProjection(FitCacheStore* cache, std::string source, FrontierOptions options, double target);

  // Fits the table (leniently: arms with too few rungs yet are noted, not fatal).
  ProjectionSnapshot refresh(const ResultsTable& table);

  // The ladder's fit behind the last snapshot (empty before the first that could fit).
  const FrontierResult& fit() const { return fit_; }
  bool hasFit() const { return !fit_.arms.empty(); }
  const FrontierOptions& options() const { return options_; }
  double target() const { return target_; }

 private:
  LadderFitter fitter_;
  FrontierOptions options_;
  double target_;
  FrontierResult fit_;
};

// The snapshot of a fit at `target` (which must be in the fit's `at` list).
ProjectionSnapshot snapshotOf(const FrontierResult& fit, const ResultsTable& table, double target);

// One line for a terminal: "12 runs, 3.1e+20 FLOPs: untied_grow 2.86x [2.21, 5.08] @1e+26; ..."
std::string projectionLine(const ProjectionSnapshot& snapshot);

}  // namespace deepladder::fitting
