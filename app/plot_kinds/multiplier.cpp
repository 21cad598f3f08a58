// `deepladder plot multiplier`: each arm's compute multiplier over the baseline with its interval,
// measured and projected up to --to (fitting/multipliers.h); from --csv or --db/--ladder.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>

#include "app/plot_kinds/plot_data.h"
#include "ui/plots/multiplier_plot.h"

namespace deepladder::app {
namespace {

auto compute_hi = std::make_shared<double>(fitting::kDefaultTarget);

const plots::PlotKindRegistrar register_multiplier_plot({
    "multiplier",
    "each arm's compute multiplier over the baseline, measured and projected to --to",
    [](CLI::App& cmd) {
      cmd.add_option("--to", *compute_hi, "Right end of the projected multiplier (multiplier)")
          ->capture_default_str();
    },
    [](const plots::PlotRequest& request) -> plots::PlotDrawing {
      const fitting::ResultsTable table = loadPlotResults(request);
      double lo = 1e300;
      for (const auto& p : table.points) lo = std::min(lo, p.compute_flops);
      fitting::FrontierOptions options = request.frontier;
      options.at = plots::multiplierBandComputes(lo, *compute_hi);
      const plots::MultiplierPlotInput input{fitPlotResults(request, table, options), *compute_hi,
                                             QStringLiteral("Compute multiplier")};
      return [input](QCustomPlot& plot) { plots::drawMultiplier(plot, input); };
    },
});

}  // namespace
}  // namespace deepladder::app
