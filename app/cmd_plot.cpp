// `deepladder plot KIND --out FILE.(png|svg|pdf)`: renders a plot off screen with QCustomPlot (no
// display needed). The kinds, their help and their own options come from the plot registry
// (ui/plots/plot_registry.h); each kind reads its data in app/plot_kinds/<kind>.cpp and draws
// with ui/plots. This file holds the options every kind shares (--db, --ladder, --csv, --run, the
// fit options) and writes the file through one checked writer. Wiring only.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "app/command_registry.h"
#include "app/fit_inputs.h"
#include "app/plot_kinds/plot_data.h"
#include "app/run_id_option.h"
#include "core/errors.h"
#include "core/safe_file.h"
#include "fitting/frontier_fit.h"
#include "storage/protected_outputs.h"
#include "ui/plots/plot_file.h"
#include "ui/plots/plot_registry.h"

namespace deepladder::app {
namespace {

struct PlotOptions {
  plots::PlotRequest request;
  std::string out;
  int width = 960;
  int height = 600;
};

int runPlot(const PlotOptions& o) {
  const plots::PlotKind* kind = plots::findPlotKind(o.request.kind);
  if (!kind) throw UserError(plots::unknownPlotKindMessage(o.request.kind));
  if (o.out.empty()) throw UserError("plot: --out is empty; give --out FILE.png|svg|pdf");
  // The plot may not replace what this command reads: checked before any work.
  ProtectedPaths inputs = storage::databaseInputs(o.request.db_path);
  inputs.addFile(o.request.csv, "the results CSV");
  requireOutputPath(o.out, "the plot", inputs);
  const plots::PlotDrawing draw = kind->render(o.request);
  // Drawn into a temporary beside --out and renamed into place: a full disk leaves no partial
  // or empty plot behind.
  AtomicOutputFile out(o.out, "the plot", inputs);
  try {
    plots::writePlotFile(draw, QString::fromStdString(out.writePath()), o.width, o.height);
  } catch (const UserError& e) {
    throw UserError(out.namingTarget(e.what()));  // --out, not the temporary it was drawn into
  }
  std::error_code ec;
  if (std::filesystem::file_size(out.writePath(), ec) == 0)
    throw UserError(o.out +
                    ": the plot could not be written (an empty file came out; is the disk "
                    "full?)");
  out.commit();
  std::fprintf(stderr, "wrote %s\n", o.out.c_str());
  return 0;
}

CommandRegistrar register_plot("plot", 52, [](CLI::App& cli) {
  auto o = std::make_shared<PlotOptions>();
  plots::PlotRequest& r = o->request;
  r.estimator = fitting::estimatorName(r.frontier.estimator);
  CLI::App* cmd =
      cli.add_subcommand("plot", "Render a plot to PNG, SVG or PDF without a display (KIND below)");
  cmd->footer("Plot kinds:\n" + plots::plotKindsHelp());
  cmd->add_option("kind", r.kind, plots::plotKindNames())->required();
  cmd->add_option("--out", o->out, "Output file: .png, .svg or .pdf")->required();
  cmd->add_option("--db", r.db_path, "SQLite database");
  cmd->add_option("--ladder", r.ladder, "Ladder name or hash");
  cmd->add_option("--csv", r.csv, "Results CSV instead of --db (fitted kinds)");
  cmd->add_option("--run", r.runs, "Run id(s)")->check(runIdCheck());
  cmd->add_option("--estimator", r.estimator, kEstimatorHelp)->capture_default_str();
  addFormOptions(cmd, plotFormOptions());
  cmd->add_option("--baseline", r.frontier.baseline, "Baseline arm")->capture_default_str();
  // Shared by the kinds that read a metric (curves, scatter).
  MetricAxisOptions& axis = plotMetricAxisOptions();
  cmd->add_option("--metric", axis.metric, "Metric key (curves; scatter without --y)")
      ->capture_default_str();
  CLI::Option* x_option =
      cmd->add_option("--x", axis.x,
                      "curves: step | tokens | flops (default step); scatter: params | tokens | "
                      "flops | tokens_per_param | lr | an option such as train.lr_mult (default "
                      "params)");
  cmd->add_flag("--log-y", axis.log_y, "Log y axis (curves, scatter)");
  CLI::Option* c_ref =
      cmd->add_option("--c-ref", r.frontier.c_ref, "Reference compute C0 (squaring: 1e15)")
          ->capture_default_str();
  cmd->add_option("--bootstrap", r.frontier.bootstrap, "Bootstrap resamples (0 = none)")
      ->capture_default_str();
  cmd->add_flag("--joint", r.frontier.joint, "Fit one E jointly across all arms");
  cmd->add_option("--width", o->width, "Width in pixels")->capture_default_str();
  cmd->add_option("--height", o->height, "Height in pixels")->capture_default_str();
  for (const plots::PlotKind* kind : plots::plotKinds())
    if (kind->add_options) kind->add_options(*cmd);
  cmd->callback([o, c_ref, x_option] {
    o->request.c_ref_given = c_ref->count() > 0;
    plotMetricAxisOptions().x_given = x_option->count() > 0;
    commandExitCode() = runPlot(*o);
  });
});

}  // namespace
}  // namespace deepladder::app
