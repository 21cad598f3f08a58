// JSON forms of the fits (what `deepladder fit --json` prints):
// frontier: {"c_ref", "baseline", "estimator": "paper"|"robust", "estimator_description",
//            "ci_level", "bootstrap": {"requested","used","resampled": "runs"|"residuals"},
//            "arms": {arm: {"E","A","gamma","gamma_se","gamma_ci":[lo,hi] (bootstrap),
//            "gamma_t":[lo,hi] (Student t, dof), "A_se","dof","n","method","bootstrap_used",
//            "no_fit": null or why the arm has no fit, "at_bound":[...]}}, "baseline_line": null or
//            the same keys (paper estimator: the baseline's own OLS line with its E fixed),
//            "multipliers": {arm: {"measured":
//            [{"compute","multiplier"}], "projected":[{"compute","multiplier","lo","hi",
//            "fit_lo","fit_hi","ci":[lo,hi]}], "per_decade","per_decade_ci":[lo,hi] (fit
//            interval)}}, "interval": what lo/hi and fit_lo/fit_hi mean, "misfit": {"base",
//            "per_decade","quantile","points","refits","prior_weight","source"} or null,
//            (and "difference_per_decade": {arm: s_diff}), "projections": {arm:
//            [{"compute","loss","decades","lo","hi","fit_lo","fit_hi", "no_interval"}]} (the arm's
//            loss at each --at), "sweep", "diagnostics"} lo/hi are the prediction interval
//            (fitting/prediction_interval.h), null where there is none; fit_lo/fit_hi the
//            bootstrap's fit interval.
// chinchilla: {"E","A","B","alpha","beta","objective","a","b"}.
// With `fit --backtest K` either object also holds "backtest" and "backtest_summary"
// (fitting/backtest_table.h).
// Non-finite numbers (a standard error with no degrees of freedom, an unreachable multiplier)
// are written as null, never as NaN. "at_bound" lists parameters that ended on a bound.
#pragma once

#include <nlohmann/json.hpp>

#include "fitting/fit_types.h"

namespace deepladder::fitting {

nlohmann::json frontierToJson(const FrontierResult& result);
nlohmann::json chinchillaToJson(const ChinchillaFit& fit);
// Pieces of frontierToJson, shared with the exports that show them alone.
nlohmann::json misfitJson(const MisfitModel& misfit);
nlohmann::json lossPredictionJson(const LossPrediction& prediction);

}  // namespace deepladder::fitting
