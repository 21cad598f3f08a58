// Prediction intervals of a frontier fit: the fit interval (the bootstrap's band, parameter
// uncertainty only) widened by the law's misfit (misfit.h), estimated from the ladder's own nested
// backtest. This is the interval every output shows by default, and the one a backtest scores:
// each backtest refit computes it from the rungs it kept, so `fit --backtest K`'s coverage is the
// coverage of the intervals `fit` prints.
//
// Where there is no interval, there is none (lo = hi = NaN, with the reason), never a zero-width
// one: an arm with no more rungs than free parameters (3 rungs for the E-free baseline), an arm
// whose E rests on such a baseline, or a fit without a bootstrap.
#pragma once

#include <cstddef>

#include "fitting/fit_types.h"
#include "fitting/frontier_band.h"
#include "fitting/misfit.h"

namespace deepladder::fitting {

// Sets every arm's rungs and max_compute from `fitted` (the points the fit used) and, with
// options.prediction_intervals, the ladder's misfit (a point-fit nested backtest of `fitted`),
// every arm's loss projections at options.at and the prediction intervals of the projected
// multipliers (their fit intervals kept in fit_lo / fit_hi).
void addPredictionIntervals(FrontierResult& fit, const ResultsTable& fitted,
                            const FrontierOptions& options);

// Arm `arm_index`'s predicted loss at `compute` with its fit and prediction intervals, from a fit
// that went through addPredictionIntervals.
LossPrediction predictLoss(const FrontierResult& fit, size_t arm_index, double compute);

// The prediction interval of arm `arm_index`'s multiplier M at baseline compute `compute`, from its
// fit interval [fit_lo, fit_hi] (NaN where there is none).
Interval predictMultiplier(const FrontierResult& fit, size_t arm_index, double compute,
                           double multiplier, double fit_lo, double fit_hi);

// The fitted L(C) (and, for a non-baseline arm, M(C)) at each compute with its prediction band:
// frontierBand / multiplierBand widened by the misfit; the fit band alone where the fit has no
// misfit estimate (FrontierResult::misfit unset). What the plots shade.
std::vector<BandPoint> predictionBand(const FrontierResult& fit, size_t arm_index,
                                      const std::vector<double>& computes);
std::vector<BandPoint> multiplierPredictionBand(const FrontierResult& fit, size_t arm_index,
                                                const std::vector<double>& computes);

// Why arm `arm_index` can have no interval at all ("" when it can): too few rungs for its
// parameters, or an E that rests on such a baseline.
std::string noIntervalReason(const FrontierResult& fit, size_t arm_index);

}  // namespace deepladder::fitting
