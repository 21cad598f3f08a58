// `deepladder plot depth`: a depth sweep, final loss against executed depth per arm
// (storage/depth_points.h).
#include "app/plot_kinds/plot_data.h"
#include "core/errors.h"
#include "storage/depth_points.h"
#include "ui/plots/depth_plot.h"

namespace deepladder::app {
namespace {

const plots::PlotKindRegistrar register_depth_plot({
    "depth",
    "a depth sweep: final loss vs executed depth per arm (--db --ladder)",
    {},
    [](const plots::PlotRequest& request) -> plots::PlotDrawing {
      if (request.ladder.empty()) throw UserError("plot depth: give --db FILE --ladder NAME");
      auto db = openPlotDatabase(request);
      const plots::DepthPlotInput input{
          storage::depthSweepPoints(*db, request.db_path, request.ladder),
          QStringLiteral("Depth sweep %1: final loss vs depth")
              .arg(QString::fromStdString(request.ladder))};
      return [input](QCustomPlot& plot) { plots::drawDepthSweep(plot, input); };
    },
});

}  // namespace
}  // namespace deepladder::app
