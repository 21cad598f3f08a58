// `deepladder plot lens`: one run's logit-lens KL per block at each eval, with the d_lens
// threshold --eps (storage/run_plot_data.h).
#include <CLI/CLI.hpp>
#include <memory>

#include "app/plot_kinds/plot_data.h"
#include "core/errors.h"
#include "storage/run_plot_data.h"
#include "ui/plots/lens_plot.h"

namespace deepladder::app {
namespace {

auto eps = std::make_shared<double>(2.0);  // d_lens threshold in nats

const plots::PlotKindRegistrar register_lens_plot({
    "lens",
    "one run's logit-lens KL per block at each eval (--db --run ID)",
    [](CLI::App& cmd) {
      cmd.add_option("--eps", *eps, "d_lens threshold in nats (lens)")->capture_default_str();
    },
    [](const plots::PlotRequest& request) -> plots::PlotDrawing {
      if (request.runs.size() != 1) throw UserError("plot lens: give exactly one --run ID");
      auto db = openPlotDatabase(request);
      const int64_t run = request.runs[0];
      plots::LensPlotInput input;
      input.profiles = storage::lensProfiles(*db, run);
      if (input.profiles.empty())
        throw UserError("run " + std::to_string(run) + " has no logit-lens rows in " +
                        request.db_path + ". Lens KL is recorded at each eval of a run");
      input.run_label = QString::fromStdString(storage::runLabel(*db, run));
      input.eps = *eps;
      input.title = QStringLiteral("Logit lens: ") + input.run_label;
      return [input](QCustomPlot& plot) { plots::drawLens(plot, input); };
    },
});

}  // namespace
}  // namespace deepladder::app
