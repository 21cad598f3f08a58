// --form auto: the fit form (fit_forms.h) a ladder's own data predicts best. Every registered form
// whose options are given (pinned-e only with --pin-e) is backtested the nested way (every arm's
// top k = 1.. rungs held out while the baseline keeps 3, point refits); the forms are compared on
// the held-out rungs every one of them predicted, and the lowest mean |relative error| wins. The
// reason names each form's error and the number of rungs compared.
#pragma once

#include <string>
#include <vector>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

struct FormScore {
  std::string form;
  int points = 0;                // held-out rungs compared (common to every form scored)
  double mean_abs_error = kNaN;  // sum |rel_error| / points
  double bias = kNaN;            // sum rel_error / points
  std::string not_scored;        // why the form was left out ("" when scored)
};

struct FormChoice {
  std::string chosen;             // the form with the lowest mean |error| ("frontier" on a tie)
  std::vector<FormScore> scores;  // every registered form
  std::string reason;             // one line: "chose curved: nested backtest mean |error| ..."
};

// UserError when no form can be scored (a ladder too short to hold a rung out).
FormChoice chooseFormByBacktest(const ResultsTable& table, const FrontierOptions& options);

}  // namespace deepladder::fitting
