// The checks a ladder's results and the fit's options pass before a frontier fit
// (fitting/frontier_fit.h) runs, each failure a UserError that names the file, line or option and
// what to do.
#pragma once

#include <string>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

// Throws UserError for: bad options, NaN/Inf or non-positive compute or loss, a missing
// baseline arm, an arm with fewer distinct computes than its fit has parameters (3 for the
// baseline, 2 for the others), an arm whose loss does not decrease with compute (least-squares
// slope of L against ln C >= 0), --joint with the paper estimator.
void validateFrontierInput(const ResultsTable& table, const FrontierOptions& options);

// Where a result point came from, for messages: "file:line", or the table's source alone.
std::string pointLocation(const ResultsTable& table, const RunPoint& point);

}  // namespace deepladder::fitting
