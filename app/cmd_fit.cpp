// `deepladder fit (--db runs.db --ladder NAME | --csv FILE) [--form frontier|chinchilla]
// [--estimator paper|robust] [--baseline vanilla] [--c-ref 1e18] [--bootstrap N] [--at LIST]
// [--joint] [--backtest K] [--json] [--record]`:
// fits a ladder's finished runs and prints the scaling table (or exactly one JSON object with
// --json). It only reads: the database is opened read-only (a read-only or immutable file works;
// a fit cached by `run` or `watch` is reused, none is added), and with --record the fit is stored
// in the fits table's history too (the database opened for writing then). A squaring ladder (task =
// "squaring") is fitted on compute vs Max T and OOD accuracy instead (fitting/squaring_trend.h).
// --backtest K adds the backtest (fitting/backtest.h): each arm refitted without its top 1..K rungs
// and scored on them (JSON: "backtest" and "backtest_summary" in the same object). Wiring only: the
// fits live in fitting/, the database in storage/.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>

#include "app/command_registry.h"
#include "app/fit_inputs.h"
#include "core/errors.h"
#include "core/safe_text.h"
#include "fitting/backtest.h"
#include "fitting/backtest_table.h"
#include "fitting/chinchilla.h"
#include "fitting/chinchilla_intervals.h"
#include "fitting/fit_diagnostics.h"
#include "fitting/fit_json.h"
#include "fitting/frontier_fit.h"
#include "fitting/lr_transfer.h"
#include "fitting/results_csv.h"
#include "fitting/scaling_table.h"
#include "fitting/session/fit_session.h"
#include "fitting/squaring_table.h"
#include "storage/database.h"
#include "storage/result_points.h"

namespace deepladder::app {
namespace {

struct FitCommandOptions {
  std::string db_path;
  std::string ladder;
  std::string csv;
  FormOptions law;  // --form (chinchilla too), --pin-e, --pin-e-source
  std::string at = formatComputeList(fitting::FrontierOptions{}.at);
  std::string estimator = fitting::estimatorName(fitting::defaultFrontierOptions().estimator);
  bool json = false;
  bool record = false;       // --record: store the fit in the fits table (history)
  int backtest = 0;          // --backtest K: rungs held out per arm, 1..K (0: no backtest)
  bool c_ref_given = false;  // --c-ref on the command line (squaring ladders default to 1e15)
  fitting::FrontierOptions frontier = fitting::defaultFrontierOptions();
};

std::vector<fitting::SizePoint> sizePointsOf(const fitting::ResultsTable& table) {
  std::vector<fitting::SizePoint> out;
  for (const auto& p : table.points) {
    if (!std::isfinite(p.params) || !std::isfinite(p.tokens))
      throw UserError(table.source + ": the Chinchilla form needs params and tokens for every run");
    out.push_back({p.params, p.tokens, p.val_loss, p.compute_flops});
  }
  return out;
}

std::string jsonText(double v) {
  return std::isfinite(v) ? nlohmann::json(v).dump() : "null";
}

void storeFrontier(storage::Database& db, const std::string& source,
                   const fitting::FrontierResult& r) {
  storage::Transaction tx(db);
  char form[160];
  if (r.form == "frontier")
    std::snprintf(form, sizeof form, "L(C)=E+A(C/%g)^-gamma%s, estimator %s", r.c_ref,
                  r.joint ? " joint E" : "", fitting::estimatorName(r.estimator).c_str());
  else
    std::snprintf(form, sizeof form, "form %s, C0 %g", r.form.c_str(), r.c_ref);
  for (const auto& f : r.arms) {
    storage::FitRecord rec;
    rec.source = source;
    rec.arm = f.arm;
    rec.form = form;
    nlohmann::json params = {{"E", f.E},
                             {"A", f.A},
                             {"gamma", f.gamma},
                             {"c_ref", r.c_ref},
                             {"baseline", r.baseline},
                             {"estimator", fitting::estimatorName(r.estimator)},
                             {"method", f.method},
                             {"at_bound", f.at_bound},
                             {"form", r.form},
                             {"extra", f.extra}};
    if (r.form == "pinned-e") params["pinned_E_source"] = r.pinned_E_source;
    nlohmann::json se = nlohmann::json::object();
    for (auto [key, v] : {std::pair{"E", f.E_se}, {"A", f.A_se}, {"gamma", f.gamma_se}})
      se[key] = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
    se["gamma_ci"] =
        nlohmann::json::parse("[" + jsonText(f.gamma_ci_lo) + "," + jsonText(f.gamma_ci_hi) + "]");
    se["gamma_t"] =
        nlohmann::json::parse("[" + jsonText(f.gamma_t_lo) + "," + jsonText(f.gamma_t_hi) + "]");
    se["dof"] = f.dof;
    rec.params_json = dumpJson(params);
    rec.stderr_json = dumpJson(se);
    db.insertFit(rec);
  }
  tx.commit();
}

void storeSquaringFits(storage::Database& db, const std::string& source,
                       const fitting::SquaringLadderSummary& s) {
  storage::Transaction tx(db);
  char c0[32];
  std::snprintf(c0, sizeof c0, "%g", s.c_ref);
  for (const auto& arm : s.arms)
    for (const auto& [name, t] :
         {std::pair{"ood_exact", arm.ood_exact}, std::pair{"rungs_seen", arm.rungs_seen}}) {
      if (!t.defined) continue;
      auto number = [](double v) {
        return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
      };
      storage::FitRecord rec;
      rec.source = source;
      rec.arm = arm.arm;
      rec.form = std::string(name) + "=a+b*log10(C/" + c0 + ")";
      rec.params_json = nlohmann::json{
          {"a", t.a},
          {"b", t.b},
          {"c_ref", s.c_ref},
          {"points", t.points},
          {"r2",
           number(t.r2)}}.dump();
      rec.stderr_json = nlohmann::json{{"a", number(t.a_se)}, {"b", number(t.b_se)}}.dump();
      db.insertFit(rec);
    }
  tx.commit();
}

// A squaring ladder: the runs' compute vs Max T and OOD accuracy, and the trends per arm.
int runSquaringFit(const FitCommandOptions& options, storage::Database& db) {
  const double c_ref = options.c_ref_given ? options.frontier.c_ref : kSquaringDefaultCRef;
  const auto summary = readSquaringSummary(db, options.db_path, options.ladder, c_ref);
  if (options.record) storeSquaringFits(db, options.ladder, summary);
  if (options.json) {
    std::printf("%s\n", dumpJson(fitting::squaringToJson(summary)).c_str());
  } else {
    std::printf("%s", fitting::squaringTableMarkdown(summary).c_str());
    if (options.record)
      std::printf("\nstored in the fits table of %s (source %s)\n", options.db_path.c_str(),
                  options.ladder.c_str());
  }
  return 0;
}

void printChinchillaTable(const fitting::ChinchillaFit& fit,
                          const std::vector<fitting::SizePoint>& points) {
  std::printf(
      "Chinchilla approach 3: L(N, D) = E + A/N^alpha + B/D^beta (%zu points, %d/%d starts "
      "converged%s)\n\n",
      points.size(), fit.converged, fit.starts,
      fit.best_converged ? "" : "; NO start converged, best shown");
  std::printf(
      "| E | A | B | alpha | beta | objective | a = beta/(alpha+beta) | b |\n"
      "|---|---|---|---|---|---|---|---|\n");
  std::printf("| %.4g | %.4g | %.4g | %.4g | %.4g | %.6g | %.4g | %.4g |\n", fit.E, fit.A, fit.B,
              fit.alpha, fit.beta, fit.objective, fit.a, fit.b);
  const auto a1 = fitting::fitChinchillaApproach1(points);
  std::printf("\nApproach 1 (lower envelope, %zu points): N_opt ~ C^%.4g, D_opt ~ C^%.4g\n",
              a1.envelope.size(), a1.a, a1.b);
  try {
    const auto a2 = fitting::fitChinchillaApproach2(points);
    std::printf(
        "Approach 2 (IsoFLOP parabolas, %zu budgets): N_opt = %.4g C^%.4g, "
        "D_opt = %.4g C^%.4g\n",
        a2.budgets.size(), a2.n_coef, a2.a, a2.d_coef, a2.b);
  } catch (const UserError& e) {
    std::printf("Approach 2: not available (%s)\n", e.what());
  }
}

// The loss at each --at compute with the compute-optimal allocation of the point fit:
// N_opt = G (C/6)^(beta/(alpha+beta)), G = (alpha A / (beta B))^(1/(alpha+beta)), D_opt = C/(6
// N_opt).
std::vector<fitting::LossPrediction> chinchillaProjections(
    const fitting::ChinchillaWithIntervals& f, const std::vector<double>& at) {
  std::vector<fitting::LossPrediction> out;
  const fitting::ChinchillaFit& c = f.fit;
  const double g = std::pow(c.alpha * c.A / (c.beta * c.B), 1.0 / (c.alpha + c.beta));
  for (double compute : at) {
    const double n = g * std::pow(compute / 6.0, c.beta / (c.alpha + c.beta));
    out.push_back(fitting::predictChinchilla(f, n, compute / (6.0 * n)));
  }
  return out;
}

void printChinchillaProjections(const fitting::ChinchillaWithIntervals& f,
                                const std::vector<fitting::LossPrediction>& projections) {
  std::printf(
      "\nProjected loss at the compute-optimal N and D (%g%% prediction interval: the bootstrap's "
      "fit interval over %zu resampled point sets, widened by the misfit sigma = %.2f%% + %.2f%% "
      "per decade, %s)\n\n| C | L | prediction interval | fit interval |\n|---|---|---|---|\n",
      100 * f.ci_level, f.draws.size(), 100 * f.misfit.base, 100 * f.misfit.per_decade,
      f.misfit.source.c_str());
  for (const auto& p : projections) {
    if (p.no_interval.empty())
      std::printf("| %.3g | %.4g | [%.4g, %.4g] | [%.4g, %.4g] |\n", p.compute, p.loss, p.lo, p.hi,
                  p.fit_lo, p.fit_hi);
    else
      std::printf("| %.3g | %.4g | %s | |\n", p.compute, p.loss, p.no_interval.c_str());
  }
}

// `fit --form chinchilla`: L(N, D) with its intervals, projections and backtest; stored with
// --record. Exit 1 when the best start did not converge.
int runChinchillaFit(const FitCommandOptions& options, storage::Database* db,
                     const std::vector<fitting::SizePoint>& sizes, const std::string& source) {
  const auto with_intervals = fitting::fitChinchillaWithIntervals(
      sizes, fitting::defaultChinchillaOptions(), options.frontier);
  const fitting::ChinchillaFit& fit = with_intervals.fit;
  if (db && options.record) {
    storage::FitRecord rec;
    rec.source = source;
    rec.arm = "all";
    rec.form = "L(N,D)=E+A/N^alpha+B/D^beta";
    rec.params_json = dumpJson(fitting::chinchillaToJson(fit));
    db->insertFit(rec);
  }
  std::optional<fitting::BacktestResult> backtest;
  if (options.backtest > 0)
    backtest = fitting::backtestChinchilla(sizes, fitting::defaultChinchillaOptions(),
                                           options.backtest, options.frontier);
  const auto projections = chinchillaProjections(with_intervals, options.frontier.at);
  if (options.json) {
    nlohmann::json out = fitting::chinchillaToJson(fit);
    out["misfit"] = fitting::misfitJson(with_intervals.misfit);
    out["projections"] = nlohmann::json::array();
    for (const auto& p : projections) out["projections"].push_back(fitting::lossPredictionJson(p));
    if (backtest) out.update(fitting::backtestToJson(*backtest));
    std::printf("%s\n", dumpJson(out).c_str());
  } else {
    printChinchillaTable(fit, sizes);
    printChinchillaProjections(with_intervals, projections);
    if (backtest) std::printf("\n%s", fitting::backtestTableMarkdown(*backtest).c_str());
  }
  return fit.best_converged ? 0 : 1;
}

int runFit(FitCommandOptions options) {
  const bool from_db = !options.db_path.empty();
  if (from_db == !options.csv.empty())
    throw UserError("fit: give either --csv FILE or --db FILE --ladder NAME");
  if (from_db && options.ladder.empty()) throw UserError("fit: --db needs --ladder NAME");
  const bool chinchilla = options.law.form == "chinchilla";
  options.frontier.at = parseComputeList(options.at);
  options.frontier.estimator = fitting::parseEstimator(options.estimator);

  // The one fit pipeline (fitting/session/fit_session.h): the database read-only unless the fit
  // is to be stored, so looking at a fit never changes the file.
  std::unique_ptr<session::FitSession> fit_session;
  storage::Database* db = nullptr;
  fitting::ResultsTable table;
  std::vector<fitting::SizePoint> sizes;
  if (from_db) {
    fit_session = session::FitSession::open(
        options.db_path, options.ladder,
        options.record ? session::DatabaseAccess::kWrite : session::DatabaseAccess::kReadOnly);
    db = fit_session->database();
    requireOneLadderNamed(*db, options.ladder, options.db_path);
    if (isSquaringLadder(*db, options.ladder)) {
      if (options.law.form != "frontier")
        throw UserError("--form " + options.law.form + ": ladder \"" + options.ladder +
                        "\" is a squaring ladder, fitted on compute vs Max T and OOD accuracy; "
                        "leave out --form");
      if (options.backtest > 0)
        throw UserError("--backtest: ladder \"" + options.ladder +
                        "\" is a squaring ladder, whose trends predict no loss to hold out; "
                        "leave out --backtest");
      return runSquaringFit(options, *db);
    }
    table = fit_session->table();
    if (chinchilla) sizes = sizePointsOf(table);
  } else if (chinchilla) {
    sizes = fitting::readSizesCsv(options.csv);
  } else {
    fit_session = session::FitSession::fromCsv(options.csv);
    table = fit_session->table();
  }
  const std::string source = from_db ? options.ladder : options.csv;

  if (chinchilla) return runChinchillaFit(options, db, sizes, source);

  const std::string form_choice = applyFormOptions(options.law, options.frontier, table);
  auto result = fit_session->fit(table, options.frontier);
  result.form_choice = form_choice;
  warnArmsWithoutFit(result);
  warnFitCaveats(result, table);
  if (db && options.record) storeFrontier(*db, source, result);
  std::optional<fitting::BacktestResult> backtest;
  if (options.backtest > 0)
    backtest = session::FitSession::backtest(table, options.frontier, options.backtest);
  // Learning-rate transfer across sizes, from the swept rungs (fitting/lr_transfer.h).
  const fitting::LrTransfer transfer = fitting::learningRateTransfer(table);
  if (options.json) {
    nlohmann::json out = fitting::frontierToJson(result);
    if (backtest) out.update(fitting::backtestToJson(*backtest));
    if (!transfer.rungs.empty()) out["lr_transfer"] = fitting::lrTransferToJson(transfer);
    std::printf("%s\n", dumpJson(out).c_str());
  } else {
    std::printf("%s", fitting::scalingTableMarkdown(result).c_str());
    std::printf("%s", fitting::diagnosticsMarkdown(result).c_str());
    std::printf("%s", fitting::lrTransferMarkdown(transfer).c_str());
    if (backtest) std::printf("\n%s", fitting::backtestTableMarkdown(*backtest).c_str());
    if (db && options.record)
      std::printf("\nstored in the fits table of %s (source %s)\n", options.db_path.c_str(),
                  source.c_str());
  }
  return 0;
}

CommandRegistrar register_fit("fit", 50, [](CLI::App& cli) {
  auto o = std::make_shared<FitCommandOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "fit",
      "Fit scaling laws: the compute frontier L(C) = E + A (C/C0)^-gamma per arm with "
      "compute multipliers, or Chinchilla L(N, D). For a squaring ladder (task = \"squaring\"): "
      "per arm, each run's training compute C against Max T (seen and unseen moduli) and OOD "
      "exact match, with the lines OOD exact = a + b log10(C/C0) and depth rungs cleared = "
      "a + b log10(C/C0) (b: gain per decade of compute; C0 = --c-ref, default 1e15 there)");
  cmd->add_option("--db", o->db_path, "SQLite database with the ladder's runs");
  cmd->add_option("--ladder", o->ladder, "Ladder name or hash (or an imported source)");
  cmd->add_option("--csv", o->csv,
                  "Results CSV: arm,compute_flops,val_loss[,params,tokens,depth] "
                  "(chinchilla: params,tokens,loss)");
  addFormOptions(cmd, o->law, "chinchilla (L(N, D), from params and tokens)");
  cmd->add_option("--estimator", o->estimator, kEstimatorHelp)->capture_default_str();
  cmd->add_option("--baseline", o->frontier.baseline, "Baseline arm")->capture_default_str();
  CLI::Option* c_ref =
      cmd->add_option("--c-ref", o->frontier.c_ref, "Reference compute C0 (squaring: 1e15)")
          ->capture_default_str();
  cmd->add_option("--bootstrap", o->frontier.bootstrap, "Bootstrap resamples (0 = none)")
      ->capture_default_str();
  cmd->add_option("--seed", o->frontier.seed, "Bootstrap seed")->capture_default_str();
  cmd->add_option("--at", o->at, "Computes for projected multipliers, comma-separated")
      ->capture_default_str();
  cmd->add_flag("--joint", o->frontier.joint, "Fit one E jointly across all arms");
  cmd->add_option("--backtest", o->backtest,
                  "Backtest: for k = 1..K refit every arm without its k top rungs (the "
                  "baseline's too; chinchilla: the k points of largest 6ND) and score the "
                  "predictions of the rungs left out")
      ->check(CLI::Range(1, 1000));
  cmd->add_flag("--json", o->json, "Print exactly one JSON object instead of the table");
  cmd->add_flag("--record", o->record,
                "Store the fit in the database's fits table (its history; opens --db for "
                "writing). Without it fit only reads, so a read-only database works");
  cmd->callback([o, c_ref] {
    o->c_ref_given = c_ref->count() > 0;
    if (o->record && o->db_path.empty())
      throw UserError("--record stores the fit in a database: give --db FILE --ladder NAME");
    commandExitCode() = runFit(*o);
  });
});

}  // namespace
}  // namespace deepladder::app
