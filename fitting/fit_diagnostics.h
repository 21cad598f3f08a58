// What a frontier fit says about its own trust, computed with the fit from the points it was
// fitted to (after the sweep envelope) and stored in FrontierResult::diagnostics; the CLI, the
// exports and the GUI print these and compute none of their own:
//   e_at_bound   the baseline's E ended on a bound of its fit (0, or the lowest loss)
//   shared_e     an arm fitted with the baseline's E rejects it: its own E fits its rungs better
//                by an F test at p < 0.01 (shared_e_check.h); not said while E is at a bound
//   backtest_failed  the ladder's own nested backtest put an arm's held-out rungs outside the
//                prediction interval each refit would have printed, more often than the level
//                allows (binomial p < 0.01; prediction_interval.h)
//   few_rungs    an arm with fewer than 4 rungs (distinct computes)
//   projection   an --at compute more than 3 decades beyond the largest fitted compute
//   sweep_edge   a rung's best sweep point is at an end of its values (extend the sweep)
// and, for every --at compute, its distance in decades from the data, its regime
// (interpolation / extrapolation / projection) and the error to expect of a loss projected there
// from the ladder's misfit. The slope change of ln(L - E) (a quadratic fit's 2 b2 (x_max - x_min))
// is still computed and exported per arm, but flags nothing: on straight laws with 1% noise it
// "bent" on a third of the arms.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fitting/fit_types.h"
#include "fitting/table_grid.h"

namespace deepladder::fitting {

// Projections further than this many decades beyond the largest fitted compute are "projection".
inline constexpr double kProjectionDecades = 3.0;
// An arm needs this many rungs before a bend or a bad rung can be seen.
inline constexpr int kTrustedRungs = 4;
// A flag fires when what it tests is this unlikely under a law that holds.
inline constexpr double kFlagPValue = 0.01;

FitDiagnostics diagnoseFrontierFit(const FrontierResult& fit, const ResultsTable& fitted,
                                   const FrontierOptions& options);

// "interpolation" | "extrapolation" | "projection" for compute `c` against the fitted range.
std::string extrapolationRegime(double c, double min_fitted, double max_fitted);

// The text printed under a fit's table (`fit`, `export --format md`): the sweep point each rung
// used (when the ladder has a sweep), each --at compute's distance from the data, and every
// diagnostic, one line each ("diagnostics: none" when the fit found nothing).
std::string diagnosticsMarkdown(const FrontierResult& fit);

// The same as rows (kind | arm | what it says), for a table on screen: every diagnostic, then
// each --at compute's distance from the data ("distance"), then the sweep point of each rung
// ("sweep"); the same sentences as diagnosticsMarkdown.
TableGrid diagnosticsGrid(const FrontierResult& fit);

// The same for JSON exports: [{arm, size, chosen, mean_loss, at_edge, edge, points: [{label,
// mean_loss, seeds}]}] and {min_fitted_compute, max_fitted_compute, extrapolation: [{compute,
// decades, regime}], warnings: [{kind, arm, message}], curvature: [{arm, slope_change, se}]}.
nlohmann::json sweepChoicesJson(const FrontierResult& fit);
nlohmann::json diagnosticsJson(const FrontierResult& fit);

// One sentence on how far the fit's projection can be trusted and why, from its diagnostics
// (the summary `make run` prints under the measured multipliers).
std::string trustSentence(const FrontierResult& fit);

}  // namespace deepladder::fitting
