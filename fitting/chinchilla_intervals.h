// Intervals for the Chinchilla form L(N, D) = E + A / N^alpha + B / D^beta (approach 3): a
// bootstrap over points (each replicate refitted from the point fit's parameters, so a thousand
// replicates cost about what the 4,500-start grid of one fit does) for the fit interval, and the
// law's misfit from a nested backtest of the points (hold out the k of largest 6ND, refit,
// predict; misfit.h) for the prediction interval, exactly as the frontier form gets them
// (prediction_interval.h). A point's distance is log10(6ND / the largest 6ND fitted).
#pragma once

#include <string>
#include <vector>

#include "fitting/chinchilla.h"
#include "fitting/fit_types.h"

namespace deepladder::fitting {

// Points a Chinchilla fit keeps at least (5 parameters and one degree of freedom); the nested
// backtest holds out no more.
inline constexpr int kChinchillaMinPoints = 6;

struct ChinchillaWithIntervals {
  ChinchillaFit fit;                 // approach 3 on every point (the grid)
  std::vector<ChinchillaFit> draws;  // bootstrap replicates that fitted
  MisfitModel misfit;                // from the nested backtest (prior only when too short)
  double max_compute = kNaN;         // largest 6ND fitted
  int points = 0;                    // points fitted
  double ci_level = 0.95;
};

// `interval` supplies bootstrap, seed, ci_level, threads and misfit_prior; bootstrap 0: no draws
// (and so no intervals). `nested`: also estimate the misfit (off inside the nested refits).
ChinchillaWithIntervals fitChinchillaWithIntervals(const std::vector<SizePoint>& points,
                                                   const ChinchillaOptions& options,
                                                   const FrontierOptions& interval,
                                                   bool nested = true);

// The fit's loss at (N, D) with both intervals (LossPrediction's fields; compute = 6ND).
LossPrediction predictChinchilla(const ChinchillaWithIntervals& fit, double params, double tokens);

}  // namespace deepladder::fitting
