// Reading shared by plot kinds (see plot_data.h).
#include "app/plot_kinds/plot_data.h"

#include <unistd.h>

#include <cstdio>

#include "app/fit_inputs.h"
#include "core/errors.h"
#include "core/metric_keys.h"
#include "fitting/session/fit_session.h"
#include "ui/plots/squaring_plot.h"

namespace deepladder::app {

FormOptions& plotFormOptions() {
  static FormOptions options;
  return options;
}

MetricAxisOptions& plotMetricAxisOptions() {
  static MetricAxisOptions options{metric_keys::kValLoss, "", false, false};
  return options;
}

fitting::FrontierOptions plotFitOptions(const plots::PlotRequest& request,
                                        const fitting::ResultsTable& table,
                                        fitting::FrontierOptions options) {
  options.estimator = fitting::parseEstimator(request.estimator);
  const std::string form_choice = applyFormOptions(plotFormOptions(), options, table);
  if (!form_choice.empty()) std::fprintf(stderr, "%s\n", form_choice.c_str());
  return options;
}

namespace {

// --db, checked: given and existing.
const std::string& plotDatabasePath(const plots::PlotRequest& request) {
  const std::string& path = request.db_path;
  if (path.empty()) throw UserError("plot " + request.kind + ": this plot needs --db FILE");
  if (access(path.c_str(), F_OK) != 0) throw UserError(path + ": no such database. Check --db");
  return path;
}

// The fit session of --csv, or of --db with --ladder, read-only: plotting changes nothing.
std::unique_ptr<session::FitSession> openPlotSession(const plots::PlotRequest& request) {
  if (!request.csv.empty()) return session::FitSession::fromCsv(request.csv);
  if (request.ladder.empty())
    throw UserError("plot " + request.kind + ": give --csv FILE or --db FILE --ladder NAME");
  return session::FitSession::open(plotDatabasePath(request), request.ladder,
                                   session::DatabaseAccess::kReadOnly);
}

}  // namespace

std::unique_ptr<storage::Database> openPlotDatabase(const plots::PlotRequest& request) {
  return storage::Database::open(plotDatabasePath(request), /*read_only=*/true);
}

fitting::ResultsTable loadPlotResults(const plots::PlotRequest& request) {
  return openPlotSession(request)->table();
}

fitting::FrontierResult fitPlotResults(const plots::PlotRequest& request,
                                       const fitting::ResultsTable& table,
                                       fitting::FrontierOptions options) {
  options = plotFitOptions(request, table, options);
  const fitting::FrontierResult result = openPlotSession(request)->fit(table, options);
  warnArmsWithoutFit(result);
  return result;
}

bool requestsSquaringLadder(const plots::PlotRequest& request) {
  if (!request.csv.empty() || request.ladder.empty()) return false;
  auto db = openPlotDatabase(request);
  return isSquaringLadder(*db, request.ladder);
}

plots::PlotDrawing squaringLadderDrawing(const plots::PlotRequest& request) {
  auto db = openPlotDatabase(request);
  const double c_ref = request.c_ref_given ? request.frontier.c_ref : kSquaringDefaultCRef;
  plots::SquaringPlotInput input{
      readSquaringSummary(*db, request.db_path, request.ladder, c_ref),
      QStringLiteral("Squaring ladder %1: depth generalization vs compute")
          .arg(QString::fromStdString(request.ladder))};
  return [input](QCustomPlot& plot) { plots::drawSquaringLadder(plot, input); };
}

}  // namespace deepladder::app
