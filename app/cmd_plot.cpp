// `deepladder plot frontier|multiplier|lens|curves --out FILE.(png|svg|pdf)`: renders a plot
// off screen with QCustomPlot (no display needed). Data from a ladder in the database
// (--db, --ladder) or a results CSV (--csv) for frontier and multiplier (fitted by --estimator
// paper|robust, named in the plot's legend); from runs (--run ID...) for lens and curves. `plot
// squaring` (or `plot frontier` on a squaring ladder) draws a task = "squaring" ladder: compute vs
// OOD exact match and Max T per arm. `plot depth` draws a depth sweep (--db, --ladder): final loss
// against executed depth per arm. `plot backtest` (--csv or --db, --ladder; --backtest K, default
// 3) draws the backtest of the frontier fit (fitting/backtest.h): predicted vs measured loss of
// every held-out rung with its interval, and the relative error against the extrapolation
// factor per arm. `plot sweep` (--db, --ladder; --arm, default the first) draws a ladder with a
// sweep: mean final loss against the swept value, one line per size. `plot scatter` (--db;
// --ladder optional) draws a summary of a metric per finished run (--y, --stat) against an option
// or derived quantity (--x), coloured by --group, with each group's fitted law, or a view the
// workbench saved (--view NAME). Wiring only: fits in fitting/,
// the plot's data from storage/ (result points, curves; lens profiles and labels from
// run_plot_data.h), drawing and writing in ui/plots/ (plot_file.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/command_registry.h"
#include "app/fit_inputs.h"
#include "app/run_id_option.h"
#include "core/errors.h"
#include "core/metric_keys.h"
#include "core/run_grouping.h"
#include "core/safe_file.h"
#include "core/scatter_spec.h"
#include "fitting/backtest.h"
#include "fitting/fit_types.h"
#include "fitting/frontier_fit.h"
#include "fitting/lr_transfer.h"
#include "fitting/multipliers.h"
#include "fitting/results_csv.h"
#include "fitting/scatter_law.h"
#include "fitting/sweep_envelope.h"
#include "storage/database.h"
#include "storage/depth_points.h"
#include "storage/protected_outputs.h"
#include "storage/result_points.h"
#include "storage/run_plot_data.h"
#include "storage/scatter_points.h"
#include "ui/plots/curve_series.h"
#include "ui/plots/plot_file.h"

namespace deepladder::app {
namespace {

struct PlotOptions {
  std::string kind;
  std::string db_path;
  std::string ladder;
  std::string csv;
  std::vector<int64_t> runs;
  std::string out;
  FormOptions law;  // --form, --pin-e, --pin-e-source (frontier, multiplier, backtest)
  std::string metric = metric_keys::kValLoss;
  std::string x = "step";
  bool x_given = false;  // --x on the command line (scatter's default is params, curves' step)
  // plot scatter (core/scatter_spec.h): --y metric, --stat, --k, --at, --group, --view.
  std::string y;
  std::string stat = "final";
  int k = 3;
  double at = 0.0;
  std::string group = "arm";
  std::string view;
  bool log_x = false;
  bool log_y = false;
  bool linear_x = false;  // scatter: its x axis is logarithmic unless --linear-x
  double ema = 0.0;
  double eps = 2.0;
  double compute_hi = fitting::kDefaultTarget;
  int backtest = 3;  // rungs held out per arm, 1..K (plot backtest)
  std::string arm;   // plot sweep: the arm drawn ("" = the first)
  std::string estimator = fitting::estimatorName(fitting::defaultFrontierOptions().estimator);
  int width = 960;
  int height = 600;
  bool c_ref_given = false;  // --c-ref on the command line (squaring ladders default to 1e15)
  fitting::FrontierOptions frontier = fitting::defaultFrontierOptions();
};

std::unique_ptr<storage::Database> openDatabase(const std::string& path) {
  if (path.empty()) throw UserError("plot: this plot needs --db FILE");
  if (access(path.c_str(), F_OK) != 0) throw UserError(path + ": no such database. Check --db");
  return storage::Database::open(path, /*read_only=*/true);
}

fitting::ResultsTable loadResults(const PlotOptions& o) {
  if (!o.csv.empty()) return fitting::readResultsCsv(o.csv);
  if (o.ladder.empty())
    throw UserError("plot " + o.kind + ": give --csv FILE or --db FILE --ladder NAME");
  auto db = openDatabase(o.db_path);
  return storage::readResults(*db, o.db_path, o.ladder);
}

// The scatter's spec from a saved view (--view) or the flags, its points, laws and picture.
plots::ScatterPlotInput scatterPlot(const PlotOptions& o) {
  auto db = openDatabase(o.db_path);
  ScatterSpec spec = defaultScatterSpec();
  if (!o.view.empty()) {
    const auto view = db->savedView(o.view);
    if (!view) {
      std::string names;
      for (const auto& v : db->savedViews("scatter")) names += (names.empty() ? "" : ", ") + v.name;
      throw UserError("--view: no saved view '" + o.view + "' in " + o.db_path +
                      (names.empty() ? std::string(" (it has none; save one in the workbench)")
                                     : "; saved scatter views: " + names));
    }
    if (view->kind != "scatter")
      throw UserError("--view: '" + o.view + "' is a " + view->kind + " view, not a scatter");
    nlohmann::json json;
    try {
      json = nlohmann::json::parse(view->spec_json);
    } catch (const nlohmann::json::exception&) {
      throw UserError("--view: the spec of '" + o.view + "' in " + o.db_path +
                      " is not JSON. Save the view again");
    }
    spec = scatterSpecFromJson(json, "view '" + o.view + "'");
  } else {
    spec.ladder = o.ladder;
    spec.metric = o.y.empty() ? o.metric : o.y;
    spec.stat = parseSummaryStat(o.stat);
    spec.k = o.k;
    spec.at = o.at;
    if (o.x_given) spec.x = o.x;
    spec.group = o.group;
    spec.log_x = !o.linear_x;
    spec.log_y = o.log_y;
  }
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
      fitting::fitScatterLaws(data.points, data.groups, spec, o.frontier);
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

int runPlot(PlotOptions o) {
  if (o.out.empty()) throw UserError("plot: --out is empty; give --out FILE.png|svg|pdf");
  // The plot may not replace what this command reads: checked before any work.
  ProtectedPaths inputs = storage::databaseInputs(o.db_path);
  inputs.addFile(o.csv, "the results CSV");
  requireOutputPath(o.out, "the plot", inputs);
  plots::PlotInput plot;
  const bool squaring_ladder =
      (o.kind == "frontier" || o.kind == "squaring") && o.csv.empty() && !o.ladder.empty() && [&] {
        auto db = openDatabase(o.db_path);
        return isSquaringLadder(*db, o.ladder);
      }();
  if (o.kind == "squaring" && !squaring_ladder)
    throw UserError(
        "plot squaring: give --db FILE --ladder NAME of a ladder with task = "
        "\"squaring\"");
  if (squaring_ladder) {
    auto db = openDatabase(o.db_path);
    const double c_ref = o.c_ref_given ? o.frontier.c_ref : kSquaringDefaultCRef;
    plot = plots::SquaringPlotInput{
        readSquaringSummary(*db, o.db_path, o.ladder, c_ref),
        QStringLiteral("Squaring ladder %1: depth generalization vs compute")
            .arg(QString::fromStdString(o.ladder))};
  } else if (o.kind == "frontier" || o.kind == "multiplier") {
    o.frontier.estimator = fitting::parseEstimator(o.estimator);
    const auto table = loadResults(o);
    const std::string form_choice = applyFormOptions(o.law, o.frontier, table);
    if (!form_choice.empty()) std::fprintf(stderr, "%s\n", form_choice.c_str());
    if (o.kind == "multiplier") {
      double lo = 1e300;
      for (const auto& p : table.points) lo = std::min(lo, p.compute_flops);
      o.frontier.at = plots::multiplierBandComputes(lo, o.compute_hi);
    }
    const auto result = [&] {
      if (!o.csv.empty()) return fitting::fitFrontier(table, o.frontier);
      auto db = openDatabase(o.db_path);
      return fitLadderCached(*db, o.ladder, table, o.frontier, /*read_only=*/true);
    }();
    warnArmsWithoutFit(result);
    if (o.kind == "frontier")
      plot = plots::FrontierPlotInput{table, result, QStringLiteral("Compute frontier")};
    else
      plot = plots::MultiplierPlotInput{result, o.compute_hi, QStringLiteral("Compute multiplier")};
  } else if (o.kind == "backtest") {
    o.frontier.estimator = fitting::parseEstimator(o.estimator);
    const auto table = loadResults(o);
    const std::string form_choice = applyFormOptions(o.law, o.frontier, table);
    if (!form_choice.empty()) std::fprintf(stderr, "%s\n", form_choice.c_str());
    const fitting::BacktestResult backtest =
        fitting::backtestFrontier(table, o.frontier, o.backtest);
    for (const auto& line : backtest.lines) std::fprintf(stderr, "%s\n", line.c_str());
    plot = plots::BacktestPlotInput{
        backtest, QStringLiteral("Backtest: top %1 rung(s) per arm held out, refitted, predicted")
                      .arg(o.backtest)};
  } else if (o.kind == "sweep") {
    plots::SweepPlotInput input;
    const auto results = loadResults(o);
    input.rungs = fitting::sweepEnvelope(results).rungs;
    input.optima = fitting::learningRateTransfer(results).rungs;
    if (input.rungs.empty())
      throw UserError("plot sweep: ladder \"" + o.ladder + "\" has no sweep (or no finished " +
                      "sweep runs yet). See `deepladder status --db " + o.db_path + "`");
    const auto arms = plots::sweepPlotArms(input.rungs);
    if (!o.arm.empty() && std::find(arms.begin(), arms.end(), o.arm) == arms.end()) {
      std::string names;
      for (const auto& a : arms) names += (names.empty() ? "" : ", ") + a;
      throw UserError("plot sweep: --arm " + o.arm +
                      " has no sweep runs; arms with some: " + names);
    }
    input.arm = o.arm.empty() ? arms.front() : o.arm;
    input.title = QStringLiteral("Sweep of %1, arm %2: mean final loss over seeds")
                      .arg(QString::fromStdString(o.ladder), QString::fromStdString(input.arm));
    plot = std::move(input);
  } else if (o.kind == "depth") {
    if (o.ladder.empty()) throw UserError("plot depth: give --db FILE --ladder NAME");
    auto db = openDatabase(o.db_path);
    plot = plots::DepthPlotInput{storage::depthSweepPoints(*db, o.db_path, o.ladder),
                                 QStringLiteral("Depth sweep %1: final loss vs depth")
                                     .arg(QString::fromStdString(o.ladder))};
  } else if (o.kind == "lens") {
    if (o.runs.size() != 1) throw UserError("plot lens: give exactly one --run ID");
    auto db = openDatabase(o.db_path);
    plots::LensPlotInput input;
    input.profiles = storage::lensProfiles(*db, o.runs[0]);
    if (input.profiles.empty())
      throw UserError("run " + std::to_string(o.runs[0]) + " has no logit-lens rows in " +
                      o.db_path + ". Lens KL is recorded at each eval of a run");
    input.run_label = QString::fromStdString(storage::runLabel(*db, o.runs[0]));
    input.eps = o.eps;
    input.title = QStringLiteral("Logit lens: ") + input.run_label;
    plot = std::move(input);
  } else if (o.kind == "curves") {
    if (o.runs.empty()) throw UserError("plot curves: give one or more --run ID");
    auto db = openDatabase(o.db_path);
    plots::CurvesPlotInput input;
    input.axis = plots::curveAxisFromName(o.x);
    input.metric = QString::fromStdString(o.metric);
    input.log_x = o.log_x;
    input.log_y = o.log_y;
    input.ema = o.ema;
    for (int64_t id : o.runs) {
      if (!db->run(id)) throw UserError("no run " + std::to_string(id) + " in " + o.db_path);
      auto series = plots::curveSeries(db->readCurve(id, o.metric, /*pixels=*/0), input.axis,
                                       QString::fromStdString(storage::runLabel(*db, id)), id);
      if (series.x.empty())
        throw UserError("run " + std::to_string(id) + " has no metric \"" + o.metric +
                        "\". See `deepladder metrics`");
      input.series.push_back(std::move(series));
    }
    plot = std::move(input);
  } else if (o.kind == "scatter") {
    plot = scatterPlot(o);
  } else {
    throw UserError("plot: '" + o.kind +
                    "' is not frontier, multiplier, lens, curves, squaring, depth, backtest, "
                    "sweep or scatter");
  }
  // Drawn into a temporary beside --out and renamed into place: a full disk leaves no partial
  // or empty plot behind.
  AtomicOutputFile out(o.out, "the plot", inputs);
  try {
    plots::writePlotFile(plot, QString::fromStdString(out.writePath()), o.width, o.height);
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

CommandRegistrar reg("plot", 52, [](CLI::App& cli) {
  auto o = std::make_shared<PlotOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "plot",
      "Render a plot to PNG, SVG or PDF without a display: frontier, multiplier, lens, curves, "
      "squaring (a task = \"squaring\" ladder: training compute vs OOD exact match with its line "
      "a + b log10(C/C0), and vs Max T on seen and unseen moduli; `frontier` on such a ladder "
      "draws the same), depth (a depth sweep: final loss against executed depth per arm), "
      "backtest (every arm refitted without its top 1..K rungs: predicted vs measured loss with "
      "intervals, and relative error against the extrapolation factor), sweep (a ladder with a "
      "[sweep]: mean final loss over seeds against the swept value, one line per size of --arm; "
      "the point each fit uses filled, one at the edge of the values tried ringed), scatter (a "
      "summary of a metric per finished run, --y and --stat, against an option or params, tokens, "
      "flops, tokens_per_param or lr, --x, coloured by --group, with each group's fitted law: "
      "the ladder's L(C) for final loss vs flops, else y = a x^b; or a saved --view)");
  cmd->add_option("kind", o->kind,
                  "frontier | multiplier | lens | curves | squaring | depth | backtest | sweep | "
                  "scatter")
      ->required()
      ->check(CLI::IsMember({"frontier", "multiplier", "lens", "curves", "squaring", "depth",
                             "backtest", "sweep", "scatter"}));
  cmd->add_option("--out", o->out, "Output file: .png, .svg or .pdf")->required();
  cmd->add_option("--db", o->db_path, "SQLite database");
  cmd->add_option("--ladder", o->ladder,
                  "Ladder name or hash (frontier, multiplier, squaring, depth, backtest, sweep)");
  cmd->add_option("--arm", o->arm, "The arm drawn (sweep; default: the first with sweep runs)");
  cmd->add_option("--csv", o->csv, "Results CSV instead of --db (frontier, multiplier, backtest)");
  cmd->add_option("--run", o->runs, "Run id(s) (lens: one; curves: any)")->check(runIdCheck());
  cmd->add_option("--metric", o->metric, "Metric key (curves)")->capture_default_str();
  CLI::Option* x_option =
      cmd->add_option("--x", o->x,
                      "curves: step | tokens | flops (default step); scatter: params | tokens | "
                      "flops | tokens_per_param | lr | an option such as train.lr_mult (default "
                      "params)");
  cmd->add_option("--y", o->y, "The metric summarised (scatter; default --metric, val/loss)");
  cmd->add_option("--stat", o->stat, "final | min | last_k | at_step | at_flops (scatter)")
      ->capture_default_str();
  cmd->add_option("--k", o->k, "Values averaged by --stat last_k (scatter)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--at", o->at, "Step or FLOPs of --stat at_step / at_flops (scatter)");
  cmd->add_option("--group", o->group,
                  "The option that groups and colours the points: arm, size, ladder, seed or a "
                  "run option such as train.lr_mult; \"\" for one group (scatter)")
      ->capture_default_str();
  cmd->add_option("--view", o->view, "A scatter view saved in the workbench (scatter)");
  cmd->add_flag("--linear-x", o->linear_x, "Linear x axis (scatter; default log)");
  cmd->add_flag("--log-x", o->log_x, "Log x axis (curves)");
  cmd->add_flag("--log-y", o->log_y, "Log y axis (curves, scatter)");
  cmd->add_option("--ema", o->ema, "EMA smoothing weight in [0, 1) (curves)")
      ->check(CLI::Range(0.0, 0.999))
      ->capture_default_str();
  cmd->add_option("--eps", o->eps, "d_lens threshold in nats (lens)")->capture_default_str();
  cmd->add_option("--estimator", o->estimator, kEstimatorHelp)->capture_default_str();
  addFormOptions(cmd, o->law);
  cmd->add_option("--baseline", o->frontier.baseline, "Baseline arm")->capture_default_str();
  CLI::Option* c_ref =
      cmd->add_option("--c-ref", o->frontier.c_ref, "Reference compute C0 (squaring: 1e15)")
          ->capture_default_str();
  cmd->add_option("--bootstrap", o->frontier.bootstrap, "Bootstrap resamples (0 = none)")
      ->capture_default_str();
  cmd->add_flag("--joint", o->frontier.joint, "Fit one E jointly across all arms");
  cmd->add_option("--to", o->compute_hi, "Right end of the projected multiplier")
      ->capture_default_str();
  cmd->add_option("--backtest", o->backtest, "Rungs held out per arm, 1..K (backtest)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--width", o->width, "Width in pixels")->capture_default_str();
  cmd->add_option("--height", o->height, "Height in pixels")->capture_default_str();
  cmd->callback([o, c_ref, x_option] {
    o->c_ref_given = c_ref->count() > 0;
    o->x_given = x_option->count() > 0;
    commandExitCode() = runPlot(*o);
  });
});

}  // namespace
}  // namespace deepladder::app
