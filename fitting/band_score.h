// Scoring a measured point against a fit's band, once for the two places that do it: a backtest
// (fitting/backtest.h: a held-out rung against the refit without it) and the live ladder
// (fitting/live_score.h: a finished run against the fit stored before it). Whether the arm can
// predict at all, and the predicted loss with its prediction interval at the point's compute.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>

#include "fitting/fit_types.h"
#include "fitting/prediction_interval.h"

namespace deepladder::fitting {

// "" when the arm's fit can predict; else why not (its no_fit reason, or no A or gamma).
inline std::string predictionProblem(const ArmFit& f) {
  if (!f.no_fit.empty()) return f.no_fit;
  if (!std::isfinite(f.A) || !std::isfinite(f.gamma)) return "the refit has no A or gamma";
  return "";
}

// Writes what arm `index` of `fit` predicts at `compute` into a scored point's predicted_loss,
// lo and hi (BacktestPoint, LiveScore): the fitted loss and its prediction interval (NaN where
// there is none: the returned prediction says why, and carries the fit interval too).
template <class ScoredPoint>
LossPrediction scoreAgainstPrediction(const FrontierResult& fit, size_t index, double compute,
                                      ScoredPoint& point) {
  const LossPrediction prediction = predictLoss(fit, index, compute);
  point.predicted_loss = prediction.loss;
  point.lo = prediction.lo;
  point.hi = prediction.hi;
  return prediction;
}

}  // namespace deepladder::fitting
