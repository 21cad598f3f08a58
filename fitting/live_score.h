// A finished run scored against the projection made before it: the fit of the ladder's runs that
// had finished until then (the live projection's fit, as the projection history stored it)
// predicts the run's loss at its compute, with the bootstrap band of that fit; the run's measured
// loss then says how far off the prediction was. The live ladder (`run`, `watch`) prints one line
// per finished run and keeps the scores as the ladder's error log.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

struct LiveScore {
  int64_t run_id = 0;            // runs.id of the finished run
  std::string arm;               // its arm
  std::string size;              // its rung ("d14"; "" when unknown)
  double compute = kNaN;         // C: its training FLOPs
  double measured_loss = kNaN;   // L measured
  double predicted_loss = kNaN;  // L(C) of the fit made before the run
  double lo = kNaN;              // bootstrap percentile (1-level)/2 of that fit's L(C)
  double hi = kNaN;              // bootstrap percentile (1+level)/2
  double rel_error = kNaN;       // (predicted - measured) / measured
  double extrapolation = kNaN;   // C / largest compute of the arm in the fit before (<= 1: inside)
  int fitted_runs = 0;           // finished runs the fit before had seen
};

// The score of `run` against `before` (a fit of the runs finished before it); nullopt when that
// fit has no curve for the run's arm (too few rungs yet, or no fit at all). `before_table`: the
// runs behind `before`, for the extrapolation factor and the count.
std::optional<LiveScore> scoreAgainstFitBefore(const FrontierResult& before,
                                               const ResultsTable& before_table,
                                               const RunPoint& run);

// "d14 came in at 2.912, predicted 2.921 [2.90, 2.94], +0.3% (vanilla)"; the interval is left out
// when the fit had none.
std::string liveScoreLine(const LiveScore& score);

}  // namespace deepladder::fitting
