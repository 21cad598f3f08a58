// Frontier fit of a ladder's results: L(C) = E + A (C/C0)^-gamma per arm with E shared with the
// baseline (or fitted jointly), by the estimator FrontierOptions::estimator names
// (frontier_estimator.h), standard errors with Student-t intervals, seeded bootstrap intervals
// (each resample fitted by the same estimator), and the compute multipliers of every arm against
// the baseline (measured at the baseline's rungs, projected at FrontierOptions::at, both from
// the baseline's E-free fit and the arms' fits). Bad data is a UserError; a fit on a bound is
// flagged in ArmFit.
#pragma once

#include <map>
#include <string>

#include "fitting/fit_types.h"
#include "fitting/frontier_input.h"

namespace deepladder::fitting {

// Under the paper estimator an E-shared arm with a point at or below the baseline's fitted E
// (ln(L - E) undefined) gets no fit: NaN A and gamma, ArmFit::no_fit naming the point; the other
// arms are fitted as usual. Such an arm has no bootstrap intervals or bands either
// (ArmFit::bootstrap_used still counts the resamples that happened to fit it).
FrontierResult fitFrontier(const ResultsTable& table, const FrontierOptions& options);

// The same fit, with the bootstrap's residuals of each arm named in `scatter` drawn from
// N(0, s^2) (a parametric bootstrap with the noise known) instead of resampled: suggest
// (suggest.h) scores a candidate with the noise held at its current estimate, so that a
// candidate's narrowing is what its place in the design buys, not a change in the estimated
// scatter. Arms not named, or named with a scatter that is not positive and finite (none
// measured yet), keep the options' method.
FrontierResult fitFrontierKnownScatter(const ResultsTable& table, const FrontierOptions& options,
                                       const std::map<std::string, double>& scatter);

// Percentile of sorted-or-not samples, linear interpolation between order statistics
// (NumPy's default); NaN for an empty sample.
double percentile(std::vector<double> samples, double q);

}  // namespace deepladder::fitting
