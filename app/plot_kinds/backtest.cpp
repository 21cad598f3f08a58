// `deepladder plot backtest`: the backtest of the frontier fit (fitting/backtest.h), every arm
// refitted without its top 1..K rungs: predicted vs measured loss of each held-out rung with its
// interval, and the relative error against the extrapolation factor.
#include "fitting/backtest.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "app/plot_kinds/plot_data.h"
#include "ui/plots/backtest_plot.h"

namespace deepladder::app {
namespace {

auto held_out = std::make_shared<int>(3);  // rungs held out per arm, 1..K

const plots::PlotKindRegistrar register_backtest_plot({
    "backtest",
    "every arm refitted without its top 1..K rungs: predicted vs measured loss with intervals, "
    "and relative error vs the extrapolation factor (--csv, or --db --ladder)",
    [](CLI::App& cmd) {
      cmd.add_option("--backtest", *held_out, "Rungs held out per arm, 1..K (backtest)")
          ->check(CLI::Range(1, 1000))
          ->capture_default_str();
    },
    [](const plots::PlotRequest& request) -> plots::PlotDrawing {
      const fitting::ResultsTable table = loadPlotResults(request);
      const fitting::FrontierOptions options = plotFitOptions(request, table, request.frontier);
      const fitting::BacktestResult backtest = fitting::backtestFrontier(table, options, *held_out);
      for (const auto& line : backtest.lines) std::fprintf(stderr, "%s\n", line.c_str());
      const plots::BacktestPlotInput input{
          backtest, QStringLiteral("Backtest: top %1 rung(s) per arm held out, refitted, predicted")
                        .arg(*held_out)};
      return [input](QCustomPlot& plot) { plots::drawBacktest(plot, input); };
    },
});

}  // namespace
}  // namespace deepladder::app
