// Scoring a measured point against a fit's band, once for the two places that do it: a backtest
// (fitting/backtest.h: a held-out rung against the refit without it) and the live ladder
// (fitting/live_score.h: a finished run against the fit stored before it). Whether the arm can
// predict at all, and the predicted loss with its interval at the point's compute.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>

#include "fitting/fit_types.h"
#include "fitting/frontier_band.h"

namespace deepladder::fitting {

// "" when the arm's fit can predict; else why not (its no_fit reason, or no A or gamma).
inline std::string predictionProblem(const ArmFit& f) {
  if (!f.no_fit.empty()) return f.no_fit;
  if (!std::isfinite(f.A) || !std::isfinite(f.gamma)) return "the refit has no A or gamma";
  return "";
}

// Writes what arm `index` of `fit` predicts at `compute` into a scored point's predicted_loss,
// lo and hi (BacktestPoint, LiveScore): the fitted loss and its band.
template <class ScoredPoint>
void scoreAgainstBand(const FrontierResult& fit, size_t index, double compute, ScoredPoint& point) {
  const BandPoint band = frontierBand(fit, index, {compute}).at(0);
  point.predicted_loss = band.value;
  point.lo = band.lo;
  point.hi = band.hi;
}

}  // namespace deepladder::fitting
