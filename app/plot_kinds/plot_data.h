// What several plot kinds read the same way (app/plot_kinds/*.cpp): the database named by --db,
// the results of --csv or --db/--ladder, the frontier fit of those results, and a serial-task
// ladder's summary. Wiring: the reading is storage's, the fitting fitting's.
#pragma once

#include <memory>
#include <string>

#include "app/fit_inputs.h"
#include "fitting/fit_types.h"
#include "storage/database.h"
#include "ui/plots/plot_registry.h"

namespace deepladder::app {

// --form, --pin-e and --pin-e-source of the fitted kinds (frontier, multiplier, backtest), as
// `fit` reads them (app/fit_inputs.h); registered once by `plot`.
FormOptions& plotFormOptions();

// The options of the kinds that read a metric (curves, scatter): --metric, --x (x_given: on the
// command line; each kind has its own default) and --log-y.
struct MetricAxisOptions {
  std::string metric;
  std::string x;
  bool x_given = false;
  bool log_y = false;
};
MetricAxisOptions& plotMetricAxisOptions();

// The fit options of a fitted kind: the request's, with --estimator and the form options applied
// to `table` (an --form auto choice is said on stderr).
fitting::FrontierOptions plotFitOptions(const plots::PlotRequest& request,
                                        const fitting::ResultsTable& table,
                                        fitting::FrontierOptions options);

// The --db database, read-only; UserError when it is not given or does not exist.
std::unique_ptr<storage::Database> openPlotDatabase(const plots::PlotRequest& request);

// The results of --csv, or of --db with --ladder; UserError naming both ways when neither is
// given.
fitting::ResultsTable loadPlotResults(const plots::PlotRequest& request);

// The frontier fit of `table` with the request's fit options (--estimator and the rest; the
// fits table's cache for a ladder), warning on stderr about arms it could not fit.
fitting::FrontierResult fitPlotResults(const plots::PlotRequest& request,
                                       const fitting::ResultsTable& table,
                                       fitting::FrontierOptions options);

// True when --db and --ladder (no --csv) name a task = "squaring" ladder.
bool requestsSquaringLadder(const plots::PlotRequest& request);

// The squaring ladder's plot: compute vs OOD exact match and Max T per arm.
plots::PlotDrawing squaringLadderDrawing(const plots::PlotRequest& request);

}  // namespace deepladder::app
