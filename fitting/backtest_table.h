// A backtest (backtest.h) as text: the JSON `fit --backtest --json` adds to its object, and the
// Markdown, CSV and LaTeX tables `fit --backtest` prints and `export --backtest` writes. Every form
// carries the same rows: per held-out rung arm, k, compute, measured and predicted loss, relative
// error, interval, covered, extrapolation factor and, for arms other than the baseline, the
// measured and predicted multiplier; then the summary per k and the quotable lines.
//
// JSON: {"backtest": [{"arm","k","compute","measured_loss","predicted_loss","rel_error","lo","hi",
// "covered","fit_lo","fit_hi","no_interval","extrapolation"[,"measured_multiplier",
// "predicted_multiplier"]}], "backtest_summary": {"form","max_k","ci_level","bootstrap",
// "resampled","groups":[{"arm","k","points","mean_abs_error","max_abs_error","bias","intervals",
// "covered","missed","no_interval","coverage","fit_intervals","fit_covered"}],"lines":[...],
// "skipped":[{"arm","k","reason"}]}}. "lo", "hi" and "covered" are the prediction interval's
// (fitting/prediction_interval.h), null where there is none ("no_interval" says why); "fit_lo" and
// "fit_hi" the fit interval's. The multiplier fields appear on non-baseline rungs where both
// multipliers exist. Non-finite numbers are null.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fitting/backtest.h"

namespace deepladder::fitting {

// The "backtest" array.
nlohmann::json backtestPointsJson(const BacktestResult& result);
// The "backtest_summary" object.
nlohmann::json backtestSummaryJson(const BacktestResult& result);
// Both, as one object {"backtest": [...], "backtest_summary": {...}}.
nlohmann::json backtestToJson(const BacktestResult& result);

// Table of held-out rungs, then the summary per k and arm, the quotable lines and what was
// skipped.
std::string backtestTableMarkdown(const BacktestResult& result);
// Tidy CSV, one held-out rung a row (the JSON array's fields as columns; empty cells for null).
std::string backtestTableCsv(const BacktestResult& result);
// A booktabs tabular of the held-out rungs and the summary lines as a footnote.
std::string backtestTableLatex(const BacktestResult& result);
// "md" | "csv" | "tex" | "json" (backtestToJson pretty-printed); UserError for anything else.
std::string backtestTable(const BacktestResult& result, const std::string& format);

}  // namespace deepladder::fitting
