// The law's misfit: how far a fitted L(C) misses rungs it has not seen, beyond what its bootstrap
// (the fit interval) already allows for. A bootstrap sees only the rungs' scatter, never a curve of
// the wrong shape; on published ladders its 95% intervals covered about half of the held-out rungs,
// with errors of one sign that grow about 2% per decade of extrapolation. That systematic part is
// what this file estimates: the relative errors e_i of a ladder's own nested backtest (drop the top
// k rungs of every arm, refit, predict) at distances d_i decades past the refit's data, per arm the
// least-squares slope b_a of e on d through the origin (the error's trend per decade), and their
// mean square, shrunk towards a prior slope calibrated on public ladders (the floor a ladder too
// short to backtest gets; where its constants come from: docs/fits.md, "How the prediction
// interval is made"):
//   s^2 = (w p^2 + sum_a n_a b_a^2) / (w + sum_a n_a),   sigma(d) = base + s d  (d > 0)
// Scatter that changes sign from rung to rung averages out of b_a: it is the fit interval's job,
// and counting it here too would widen clean laws' intervals for nothing.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

// One held-out prediction of a nested backtest: its relative error and its distance in decades.
struct MisfitSample {
  std::string arm;          // the arm it was held out of
  double rel_error = kNaN;  // (predicted - measured) / measured
  double decades = kNaN;    // log10(C held out / largest compute kept of the arm)
};

// The model from `samples` (non-finite ones and those at d <= 0 ignored), as above with
// p = prior.per_decade and w = prior.weight; base is the prior's. quantile is the normal
// (1+level)/2 point (a Student t on the nested samples' count was tried: with the one to three
// samples a short refit has, it doubled the intervals of clean laws and widened the published
// ladders' to 97-100% coverage). `refits` is recorded as is (the number of nested refits behind the
// samples).
// `fit_slope_variance` (optional, per arm): the part of b_a^2 a refit's own parameter uncertainty
// explains (what the fit interval already covers), subtracted from each arm's b_a^2 (not below 0).
MisfitModel estimateMisfit(const std::vector<MisfitSample>& samples, int refits, double level,
                           const MisfitPrior& prior,
                           const std::map<std::string, double>& fit_slope_variance = {});

// sigma(d): the relative standard deviation of the law's error d decades past the data.
double misfitSigma(const MisfitModel& model, double decades);

// The prediction interval's half-widths from the fit interval's and the misfit's: each side of the
// fit interval combined in quadrature with q sigma(d) L. NaN in, NaN out.
struct Interval {
  double lo = kNaN;
  double hi = kNaN;
};
Interval widenByMisfit(double value, double fit_lo, double fit_hi, double misfit_half_width);

}  // namespace deepladder::fitting
