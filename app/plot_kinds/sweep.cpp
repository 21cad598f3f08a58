// `deepladder plot sweep`: a ladder with a [sweep], mean final loss over seeds against the swept
// value, one line per size of --arm; the point each fit uses filled, one at the edge of the
// values tried ringed (fitting/sweep_envelope.h), each rung's fitted optimum marked
// (fitting/lr_transfer.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>

#include "app/plot_kinds/plot_data.h"
#include "core/errors.h"
#include "fitting/lr_transfer.h"
#include "fitting/sweep_envelope.h"
#include "ui/plots/sweep_plot.h"

namespace deepladder::app {
namespace {

auto arm = std::make_shared<std::string>();  // the arm drawn ("" = the first)

const plots::PlotKindRegistrar register_sweep_plot({
    "sweep",
    "a ladder with a [sweep]: mean final loss over seeds vs the swept value, a line per size of "
    "--arm (--db --ladder)",
    [](CLI::App& cmd) {
      cmd.add_option("--arm", *arm, "The arm drawn (sweep; default: the first with sweep runs)");
    },
    [](const plots::PlotRequest& request) -> plots::PlotDrawing {
      plots::SweepPlotInput input;
      const fitting::ResultsTable results = loadPlotResults(request);
      input.rungs = fitting::sweepEnvelope(results).rungs;
      input.optima = fitting::learningRateTransfer(results).rungs;
      if (input.rungs.empty())
        throw UserError("plot sweep: ladder \"" + request.ladder +
                        "\" has no sweep (or no finished sweep runs yet). See `deepladder "
                        "status --db " +
                        request.db_path + "`");
      const auto arms = plots::sweepPlotArms(input.rungs);
      if (!arm->empty() && std::find(arms.begin(), arms.end(), *arm) == arms.end()) {
        std::string names;
        for (const auto& a : arms) names += (names.empty() ? "" : ", ") + a;
        throw UserError("plot sweep: --arm " + *arm +
                        " has no sweep runs; arms with some: " + names);
      }
      input.arm = arm->empty() ? arms.front() : *arm;
      input.title =
          QStringLiteral("Sweep of %1, arm %2: mean final loss over seeds")
              .arg(QString::fromStdString(request.ladder), QString::fromStdString(input.arm));
      return [input](QCustomPlot& plot) { plots::drawSweep(plot, input); };
    },
});

}  // namespace
}  // namespace deepladder::app
