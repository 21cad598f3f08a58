// `deepladder plot scatter`: a summary of a metric per finished run (--y, --stat) against an
// option or a derived quantity (--x), coloured by --group, with each group's fitted law
// (fitting/scatter_law.h); or a view the workbench saved (--view NAME, core/scatter_spec.h).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/plot_kinds/plot_data.h"
#include "core/errors.h"
#include "core/run_grouping.h"
#include "core/scatter_spec.h"
#include "fitting/scatter_law.h"
#include "storage/scatter_points.h"
#include "ui/plots/scatter_plot.h"

namespace deepladder::app {
namespace {

struct ScatterOptions {  // --metric, --x and --log-y: plotMetricAxisOptions()
  std::string y;
  std::string stat = "final";
  int k = 3;
  double at = 0.0;
  std::string group = "arm";
  std::string view;
  bool linear_x = false;  // its x axis is logarithmic unless --linear-x
};
auto scatter_options = std::make_shared<ScatterOptions>();

// The saved view's spec; UserError naming the saved scatter views when there is no such view.
ScatterSpec savedScatterSpec(storage::Database& db, const std::string& name,
                             const std::string& db_path) {
  const auto view = db.savedView(name);
  if (!view) {
    std::string names;
    for (const auto& v : db.savedViews("scatter")) names += (names.empty() ? "" : ", ") + v.name;
    throw UserError("--view: no saved view '" + name + "' in " + db_path +
                    (names.empty() ? std::string(" (it has none; save one in the workbench)")
                                   : "; saved scatter views: " + names));
  }
  if (view->kind != "scatter")
    throw UserError("--view: '" + name + "' is a " + view->kind + " view, not a scatter");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(view->spec_json);
  } catch (const nlohmann::json::exception&) {
    throw UserError("--view: the spec of '" + name + "' in " + db_path +
                    " is not JSON. Save the view again");
  }
  return scatterSpecFromJson(json, "view '" + name + "'");
}

// The spec the flags describe.
ScatterSpec flagScatterSpec(const plots::PlotRequest& request) {
  const ScatterOptions& o = *scatter_options;
  const MetricAxisOptions& axis = plotMetricAxisOptions();
  ScatterSpec spec = defaultScatterSpec();
  spec.ladder = request.ladder;
  spec.metric = o.y.empty() ? axis.metric : o.y;
  spec.stat = parseSummaryStat(o.stat);
  spec.k = o.k;
  spec.at = o.at;
  if (axis.x_given) spec.x = axis.x;
  spec.group = o.group;
  spec.log_x = !o.linear_x;
  spec.log_y = axis.log_y;
  return spec;
}

plots::ScatterPlotInput scatterInput(const plots::PlotRequest& request) {
  auto db = openPlotDatabase(request);
  const ScatterSpec spec = scatter_options->view.empty()
                               ? flagScatterSpec(request)
                               : savedScatterSpec(*db, scatter_options->view, request.db_path);
  const storage::ScatterData data = storage::readScatterPoints(*db, spec);
  if (data.points.empty())
    throw UserError(
        "plot scatter: no finished run has both " + data.x_label + " and " + data.y_label +
        (data.left_out_example.empty() ? std::string() : " (" + data.left_out_example + ")") +
        ". See `deepladder metrics`");
  if (data.left_out > 0)
    std::fprintf(stderr, "plot scatter: %d finished run(s) left out, e.g. %s\n", data.left_out,
                 data.left_out_example.c_str());
  const fitting::ScatterFit fit =
      fitting::fitScatterLaws(data.points, data.groups, spec, request.frontier);
  for (const auto& law : fit.laws)
    std::fprintf(stderr, "%s: %s\n", law.group.c_str(), law.formula().c_str());
  plots::ScatterPlotInput input;
  input.points = data.points;
  input.groups = data.groups;
  input.laws = fit.laws;
  input.x_label = QString::fromStdString(data.x_label);
  input.y_label = QString::fromStdString(data.y_label);
  input.group_by = QString::fromStdString(shortOptionName(spec.group));
  input.note = QString::fromStdString(fit.note);
  input.log_x = spec.log_x;
  input.log_y = spec.log_y;
  input.title =
      QStringLiteral("%1 vs %2")
          .arg(QString::fromStdString(data.y_label), QString::fromStdString(data.x_label));
  return input;
}

const plots::PlotKindRegistrar register_scatter_plot({
    "scatter",
    "a summary of a metric per finished run (--y, --stat) vs an option or params, tokens, flops, "
    "tokens_per_param or lr (--x), coloured by --group, with each group's fitted law: the "
    "ladder's L(C) for final loss vs flops, else y = a x^b; or a saved --view (--db)",
    [](CLI::App& cmd) {
      ScatterOptions& o = *scatter_options;
      cmd.add_option("--y", o.y, "The metric summarised (scatter; default --metric, val/loss)");
      cmd.add_option("--stat", o.stat, "final | min | last_k | at_step | at_flops (scatter)")
          ->capture_default_str();
      cmd.add_option("--k", o.k, "Values averaged by --stat last_k (scatter)")
          ->check(CLI::Range(1, 1000000))
          ->capture_default_str();
      cmd.add_option("--at", o.at, "Step or FLOPs of --stat at_step / at_flops (scatter)");
      cmd.add_option("--group", o.group,
                     "The option that groups and colours the points: arm, size, ladder, seed or "
                     "a run option such as train.lr_mult; \"\" for one group (scatter)")
          ->capture_default_str();
      cmd.add_option("--view", o.view, "A scatter view saved in the workbench (scatter)");
      cmd.add_flag("--linear-x", o.linear_x, "Linear x axis (scatter; default log)");
    },
    [](const plots::PlotRequest& request) -> plots::PlotDrawing {
      const plots::ScatterPlotInput input = scatterInput(request);
      return [input](QCustomPlot& plot) { plots::drawScatter(plot, input); };
    },
});

}  // namespace
}  // namespace deepladder::app
