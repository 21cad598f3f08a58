// `deepladder plot curves`: one metric of one or more runs against step, tokens or FLOPs
// (storage's curves, decimated by ui/plots/curve_series.h), optionally smoothed and on log axes.
#include <CLI/CLI.hpp>
#include <memory>

#include "app/plot_kinds/plot_data.h"
#include "core/errors.h"
#include "storage/run_plot_data.h"
#include "ui/plots/curve_series.h"
#include "ui/plots/curves_plot.h"

namespace deepladder::app {
namespace {

struct CurvesOptions {  // --metric, --x and --log-y: plotMetricAxisOptions()
  bool log_x = false;
  double ema = 0.0;
};
auto curves_options = std::make_shared<CurvesOptions>();

const plots::PlotKindRegistrar register_curves_plot({
    "curves",
    "a metric of one or more runs vs step, tokens or FLOPs (--db --run ID...)",
    [](CLI::App& cmd) {
      cmd.add_flag("--log-x", curves_options->log_x, "Log x axis (curves)");
      cmd.add_option("--ema", curves_options->ema, "EMA smoothing weight in [0, 1) (curves)")
          ->check(CLI::Range(0.0, 0.999))
          ->capture_default_str();
    },
    [](const plots::PlotRequest& request) -> plots::PlotDrawing {
      if (request.runs.empty()) throw UserError("plot curves: give one or more --run ID");
      auto db = openPlotDatabase(request);
      const CurvesOptions& o = *curves_options;
      const MetricAxisOptions& axis = plotMetricAxisOptions();
      plots::CurvesPlotInput input;
      input.axis = plots::curveAxisFromName(axis.x_given ? axis.x : "step");
      input.metric = QString::fromStdString(axis.metric);
      input.log_x = o.log_x;
      input.log_y = axis.log_y;
      input.ema = o.ema;
      for (int64_t id : request.runs) {
        if (!db->run(id))
          throw UserError("no run " + std::to_string(id) + " in " + request.db_path);
        auto series = plots::curveSeries(db->readCurve(id, axis.metric, /*pixels=*/0), input.axis,
                                         QString::fromStdString(storage::runLabel(*db, id)), id);
        if (series.x.empty())
          throw UserError("run " + std::to_string(id) + " has no metric \"" + axis.metric +
                          "\". See `deepladder metrics`");
        input.series.push_back(std::move(series));
      }
      return [input](QCustomPlot& plot) { plots::drawCurves(plot, input); };
    },
});

}  // namespace
}  // namespace deepladder::app
