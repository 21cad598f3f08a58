// `deepladder plot squaring-heatmap`: one serial-task run's exact-match accuracy over (modulus
// bits x T) at its latest eval, as the workbench's Serial-task view draws it
// (ui/plots/squaring_run_plot.h; the cells from storage/squaring_run.h).
#include "app/plot_kinds/plot_data.h"
#include "core/errors.h"
#include "storage/squaring_run.h"
#include "ui/plots/squaring_run_plot.h"

namespace deepladder::app {
namespace {

const plots::PlotKindRegistrar register_squaring_heatmap_plot({
    "squaring-heatmap",
    "one serial-task run's exact-match accuracy over modulus bits x T, OOD cells outlined "
    "(--db --run ID)",
    {},
    [](const plots::PlotRequest& request) -> plots::PlotDrawing {
      if (request.runs.size() != 1)
        throw UserError("plot squaring-heatmap: give exactly one --run ID");
      auto db = openPlotDatabase(request);
      const int64_t run = request.runs[0];
      auto read = storage::readSquaringRun(*db, run);
      if (!read || read->cells.empty())
        throw UserError("run " + std::to_string(run) + " has no serial-task evals in " +
                        request.db_path + ". Squaring runs record them at each eval");
      plots::SquaringCells cells;
      cells.cells = std::move(read->cells);
      cells.bits = std::move(read->bits);
      cells.ts = std::move(read->ts);
      cells.tier = read->tier;
      cells.maps = std::move(read->maps);
      const QString title =
          QStringLiteral("Run %1: exact-match accuracy at step %2").arg(run).arg(read->step);
      return [cells, title](QCustomPlot& plot) { plots::drawSquaringHeatmap(plot, cells, title); };
    },
});

}  // namespace
}  // namespace deepladder::app
