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
// sweep: mean final loss against the swept value, one line per size. Wiring only: fits in fitting/,
// the plot's data from storage/ (result points, curves; lens profiles and labels from
// run_plot_data.h), drawing and writing in ui/plots/ (plot_file.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "app/command_registry.h"
#include "app/fit_inputs.h"
#include "app/run_id_option.h"
#include "core/errors.h"
#include "core/metric_keys.h"
#include "core/safe_file.h"
#include "fitting/backtest.h"
#include "fitting/fit_types.h"
#include "fitting/frontier_fit.h"
#include "fitting/lr_transfer.h"
#include "fitting/multipliers.h"
#include "fitting/results_csv.h"
#include "fitting/sweep_envelope.h"
#include "storage/database.h"
#include "storage/depth_points.h"
#include "storage/result_points.h"
#include "storage/run_plot_data.h"
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
  std::string metric = metric_keys::kValLoss;
  std::string x = "step";
  bool log_x = false;
  bool log_y = false;
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

int runPlot(PlotOptions o) {
  if (o.out.empty()) throw UserError("plot: give --out FILE.png|svg|pdf");
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
  } else {
    throw UserError("plot: '" + o.kind +
                    "' is not frontier, multiplier, lens, curves, squaring, depth, backtest or "
                    "sweep");
  }
  // Drawn into a temporary beside --out and renamed into place: a full disk leaves no partial
  // or empty plot behind.
  AtomicOutputFile out(o.out, "the plot");
  plots::writePlotFile(plot, QString::fromStdString(out.writePath()), o.width, o.height);
  std::error_code ec;
  if (out.writePath() != o.out && std::filesystem::file_size(out.writePath(), ec) == 0)
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
      "the point each fit uses filled, one at the edge of the values tried ringed)");
  cmd->add_option("kind", o->kind,
                  "frontier | multiplier | lens | curves | squaring | depth | backtest | sweep")
      ->required()
      ->check(CLI::IsMember(
          {"frontier", "multiplier", "lens", "curves", "squaring", "depth", "backtest", "sweep"}));
  cmd->add_option("--out", o->out, "Output file: .png, .svg or .pdf")->required();
  cmd->add_option("--db", o->db_path, "SQLite database");
  cmd->add_option("--ladder", o->ladder,
                  "Ladder name or hash (frontier, multiplier, squaring, depth, backtest, sweep)");
  cmd->add_option("--arm", o->arm, "The arm drawn (sweep; default: the first with sweep runs)");
  cmd->add_option("--csv", o->csv, "Results CSV instead of --db (frontier, multiplier, backtest)");
  cmd->add_option("--run", o->runs, "Run id(s) (lens: one; curves: any)")->check(runIdCheck());
  cmd->add_option("--metric", o->metric, "Metric key (curves)")->capture_default_str();
  cmd->add_option("--x", o->x, "step | tokens | flops (curves)")->capture_default_str();
  cmd->add_flag("--log-x", o->log_x, "Log x axis (curves)");
  cmd->add_flag("--log-y", o->log_y, "Log y axis (curves)");
  cmd->add_option("--ema", o->ema, "EMA smoothing weight in [0, 1) (curves)")
      ->check(CLI::Range(0.0, 0.999))
      ->capture_default_str();
  cmd->add_option("--eps", o->eps, "d_lens threshold in nats (lens)")->capture_default_str();
  cmd->add_option("--estimator", o->estimator, kEstimatorHelp)->capture_default_str();
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
  cmd->callback([o, c_ref] {
    o->c_ref_given = c_ref->count() > 0;
    commandExitCode() = runPlot(*o);
  });
});

}  // namespace
}  // namespace deepladder::app
