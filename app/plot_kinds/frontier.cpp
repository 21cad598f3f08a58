// `deepladder plot frontier`: loss against training compute per arm with each arm's fitted law
// (fitting/frontier_fit.h); from --csv or --db/--ladder. On a serial-task ladder it draws what
// `plot squaring` draws.
#include "app/plot_kinds/plot_data.h"
#include "ui/plots/frontier_plot.h"

namespace deepladder::app {
namespace {

const plots::PlotKindRegistrar register_frontier_plot({
    "frontier",
    "loss vs training compute per arm with its fitted law (--csv, or --db --ladder; a squaring "
    "ladder: as `squaring`)",
    {},
    [](const plots::PlotRequest& request) -> plots::PlotDrawing {
      if (requestsSquaringLadder(request)) return squaringLadderDrawing(request);
      plots::FrontierPlotInput input;
      input.table = loadPlotResults(request);
      input.result = fitPlotResults(request, input.table, request.frontier);
      input.title = QStringLiteral("Compute frontier");
      return [input](QCustomPlot& plot) { plots::drawFrontier(plot, input); };
    },
});

}  // namespace
}  // namespace deepladder::app
