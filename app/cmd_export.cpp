// `deepladder export (--csv FILE | --db runs.db --ladder NAME) --format md|csv|tex|json [--out
// FILE] [--estimator paper|robust] [--backtest K]`: fits the frontier of a results CSV (same
// options as `fit`) and writes the scaling table: the estimator that made it, per arm gamma +- se
// with its bootstrap and t intervals, A, E, measured and projected multipliers with intervals. For
// a squaring ladder (task = "squaring") the table is per run compute vs Max T (seen, unseen moduli)
// and OOD/test exact match, with the per-arm lines against log10(C / C0)
// (fitting/squaring_table.h). With --backtest K the table written is the backtest's instead
// (fitting/backtest_table.h: every arm refitted without its top 1..K rungs and scored on them),
// the same rows `fit --backtest K` prints. Wiring only; the tables are in fitting/.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "app/command_registry.h"
#include "app/fit_inputs.h"
#include "core/errors.h"
#include "core/safe_file.h"
#include "fitting/backtest.h"
#include "fitting/backtest_table.h"
#include "fitting/frontier_fit.h"
#include "fitting/results_csv.h"
#include "fitting/scaling_table.h"
#include "fitting/session/fit_session.h"
#include "fitting/squaring_table.h"
#include "storage/database.h"
#include "storage/protected_outputs.h"
#include "storage/result_points.h"

namespace deepladder::app {
namespace {

struct ExportOptions {
  std::string csv;
  std::string db_path;
  std::string ladder;
  std::string format = "md";
  std::string out;
  bool out_given = false;  // --out on the command line (an empty --out is refused, not stdout)
  std::string at = formatComputeList(fitting::FrontierOptions{}.at);
  std::string estimator = fitting::estimatorName(fitting::defaultFrontierOptions().estimator);
  int backtest = 0;          // --backtest K (0: the scaling table)
  FormOptions law;           // --form, --pin-e, --pin-e-source
  bool c_ref_given = false;  // --c-ref on the command line (squaring ladders default to 1e15)
  fitting::FrontierOptions frontier = fitting::defaultFrontierOptions();
};

int runExport(ExportOptions options) {
  options.frontier.at = parseComputeList(options.at);
  options.frontier.estimator = fitting::parseEstimator(options.estimator);
  if (options.csv.empty() == options.db_path.empty())
    throw UserError("give either --csv FILE or --db FILE --ladder NAME");
  // The output may not replace what this command reads: checked before any work.
  ProtectedPaths inputs = storage::databaseInputs(options.db_path);
  inputs.addFile(options.csv, "the results CSV");
  if (options.out_given) requireOutputPath(options.out, "the --out file", inputs);
  fitting::ResultsTable table;
  std::string text;
  // The one fit pipeline (fitting/session/fit_session.h), read-only: exporting changes nothing.
  std::unique_ptr<session::FitSession> fit_session;
  if (!options.csv.empty()) {
    fit_session = session::FitSession::fromCsv(options.csv);
    table = fit_session->table();
  } else {
    if (options.ladder.empty()) throw UserError("--db needs --ladder NAME");
    fit_session = session::FitSession::open(options.db_path, options.ladder,
                                            session::DatabaseAccess::kReadOnly);
    storage::Database& db = *fit_session->database();
    requireOneLadderNamed(db, options.ladder, options.db_path);
    if (isSquaringLadder(db, options.ladder)) {
      if (options.backtest > 0)
        throw UserError("--backtest: ladder \"" + options.ladder +
                        "\" is a squaring ladder, whose trends predict no loss to hold out");
      const double c_ref = options.c_ref_given ? options.frontier.c_ref : kSquaringDefaultCRef;
      text = fitting::squaringTable(readSquaringSummary(db, options.db_path, options.ladder, c_ref),
                                    options.format);
    } else {
      table = fit_session->table();
    }
  }
  std::string form_choice;
  if (text.empty()) form_choice = applyFormOptions(options.law, options.frontier, table);
  if (!form_choice.empty()) std::fprintf(stderr, "%s\n", form_choice.c_str());
  if (text.empty() && options.backtest > 0) {
    text = fitting::backtestTable(
        session::FitSession::backtest(table, options.frontier, options.backtest), options.format);
  } else if (text.empty()) {
    auto result = fit_session->fit(table, options.frontier);
    result.form_choice = form_choice;
    warnArmsWithoutFit(result);
    warnFitCaveats(result, table);
    text = fitting::scalingTable(result, options.format);
  }
  if (!options.out_given) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  writeFileAtomically(options.out, text, "the --out file", inputs);  // whole, or not at all
  std::fprintf(stderr, "wrote %s\n", options.out.c_str());
  return 0;
}

CommandRegistrar register_export("export", 51, [](CLI::App& cli) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "export",
      "Write the scaling table of a frontier fit as Markdown, CSV, LaTeX or JSON. For a squaring "
      "ladder: each run's compute, Max T (seen, unseen moduli), OOD and test exact match, and per "
      "arm the lines OOD exact and depth rungs cleared = a + b log10(C/C0)");
  cmd->add_option("--csv", o->csv, "Results CSV: arm,compute_flops,val_loss[,...]");
  cmd->add_option("--db", o->db_path, "SQLite database with the ladder's runs");
  cmd->add_option("--ladder", o->ladder, "Ladder name or hash (or an imported source)");
  cmd->add_option("--format", o->format, "md | csv | tex | json")
      ->check(CLI::IsMember({"md", "csv", "tex", "json"}))
      ->capture_default_str();
  CLI::Option* out = cmd->add_option(
      "--out", o->out,
      "Output file (default: standard output); a regular file or a new one, not the database or "
      "anything inside a work directory");
  cmd->add_option("--estimator", o->estimator, kEstimatorHelp)->capture_default_str();
  addFormOptions(cmd, o->law);
  cmd->add_option("--baseline", o->frontier.baseline, "Baseline arm")->capture_default_str();
  CLI::Option* c_ref =
      cmd->add_option("--c-ref", o->frontier.c_ref, "Reference compute C0 (squaring: 1e15)")
          ->capture_default_str();
  cmd->add_option("--bootstrap", o->frontier.bootstrap, "Bootstrap resamples (0 = none)")
      ->capture_default_str();
  cmd->add_option("--at", o->at, "Computes for projected multipliers, comma-separated")
      ->capture_default_str();
  cmd->add_flag("--joint", o->frontier.joint, "Fit one E jointly across all arms");
  cmd->add_option("--backtest", o->backtest,
                  "Write the backtest table instead: every arm refitted without its k top rungs, "
                  "k = 1..K, and scored on them")
      ->check(CLI::Range(1, 1000));
  cmd->callback([o, c_ref, out] {
    o->c_ref_given = c_ref->count() > 0;
    o->out_given = out->count() > 0;
    commandExitCode() = runExport(*o);
  });
});

}  // namespace
}  // namespace deepladder::app
