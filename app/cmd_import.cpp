// `deepladder import SOURCE --db runs.db [--name NAME]`: ladders trained elsewhere. SOURCE is
//  - a TensorBoard log directory (or one run's directory): every run's event files, scalars by tag
//    (--tag TAG=KEY), options from its hparams, config.json / config.toml and --set KEY=VALUE,
//    stored as a ladder of finished runs with their curves (core/import/,
//    storage/imported_ladder.h);
//  - a curves CSV with the columns run,step,metric,value (+ wall_time, option columns): the same;
//  - a results CSV (arm,compute_flops,val_loss[,params,tokens,depth]): points only, an external
//    source that `fit`, `export` and `plot` read like a ladder.
// A trained ladder's name is refused. Importing a results CSV under a name again replaces its
// points only with --replace (storage/imported_source.h); a log directory or curves CSV imported
// again replaces the earlier import of that name. Nothing is half-imported.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "app/command_registry.h"
#include "core/errors.h"
#include "core/import/metrics_csv.h"
#include "core/import/tb_logdir.h"
#include "core/ladder/ladder_spec.h"
#include "core/names.h"
#include "core/safe_text.h"
#include "core/toml_reader.h"
#include "fitting/results_csv.h"
#include "storage/database.h"
#include "storage/imported_ladder.h"
#include "storage/imported_source.h"

namespace deepladder::app {
namespace {

struct ImportOptions {
  std::string csv;
  std::string db_path = "runs.db";
  std::string name;
  bool allow_duplicates = false;
  std::vector<std::string> tags, sets;
  std::string final_metric = imports::defaultImportSettings().final_metric;
  std::string arm = imports::defaultImportSettings().default_arm;
  bool replace = false;
};

std::optional<double> optionalValue(double v) {
  if (std::isfinite(v)) return v;
  return std::nullopt;
}

// The rules a ladder file's names and sizes follow (core/names.h, kMaxLadderRuns), and no
// (arm, compute) pair twice unless asked for: a duplicate counts one run as two, and a fit through
// copies of three points looks exact (standard errors of 1e-15).
void checkImportedTable(const fitting::ResultsTable& table, const std::string& csv,
                        const std::string& name, bool allow_duplicates) {
  if (table.points.size() > size_t(ladder::kMaxLadderRuns))
    throw UserError(csv + ": " + std::to_string(table.points.size()) +
                    " points; an import holds at most " + std::to_string(ladder::kMaxLadderRuns) +
                    " (as a ladder holds at most that many runs). Split the file or keep the "
                    "runs a fit needs");
  if (const auto problem = nameProblem(name))
    throw UserError("--name: source name \"" + shownText(name) + "\" " + *problem + ". " +
                    nameRuleHint());
  std::map<std::pair<std::string, double>, long> seen;
  for (const auto& p : table.points) {
    if (const auto problem = nameProblem(p.arm))
      throw UserError(locatedMessage(csv, p.source_line, "arm",
                                     "arm name \"" + shownText(p.arm) + "\" " + *problem,
                                     nameRuleHint()));
    const auto [it, added] = seen.emplace(std::make_pair(p.arm, p.compute_flops), p.source_line);
    if (!added && !allow_duplicates) {
      char compute[32];
      std::snprintf(compute, sizeof compute, "%.6g", p.compute_flops);
      throw UserError(locatedMessage(
          csv, p.source_line, "compute_flops",
          "arm \"" + p.arm + "\" at compute " + compute + " is already on line " +
              std::to_string(it->second),
          "A duplicate row counts one run twice and makes a fit look more certain than it is. "
          "Remove it, or pass --allow-duplicates when the rows are distinct runs (seeds)"));
    }
  }
}

// A results CSV: one point per run, stored as an external source.
int importResultsCsv(const ImportOptions& options, const std::string& name) {
  const fitting::ResultsTable table = fitting::readResultsCsv(options.csv);  // validated first
  checkImportedTable(table, options.csv, name, options.allow_duplicates);
  std::vector<storage::ExternalPoint> points;
  for (const auto& p : table.points) {
    storage::ExternalPoint e;
    e.source = name;
    e.arm = p.arm;
    e.compute = p.compute_flops;
    e.loss = p.val_loss;
    e.params = optionalValue(p.params);
    e.tokens = optionalValue(p.tokens);
    e.depth = optionalValue(p.depth);
    points.push_back(e);
  }
  auto db = storage::Database::open(options.db_path);
  storage::storeImportedSource(*db, options.db_path, name, points, options.replace);
  std::printf(
      "imported %zu points as \"%s\" into %s; fit them with: deepladder fit --db %s --ladder %s\n",
      points.size(), name.c_str(), options.db_path.c_str(), options.db_path.c_str(), name.c_str());
  return 0;
}

imports::ImportSettings importSettings(const ImportOptions& options) {
  imports::ImportSettings settings = imports::defaultImportSettings();
  for (const auto& text : options.tags) {
    const auto [tag, key] = imports::splitAssignment(text, "--tag");
    settings.tag_map[tag] = key;
  }
  nlohmann::json flat = nlohmann::json::object();
  for (const auto& text : options.sets) {
    const auto [key, value] = imports::splitAssignment(text, "--set");
    flat[key] = imports::optionValueOfText(value);
  }
  settings.set_options = imports::unflattenOptions(flat);
  settings.final_metric = options.final_metric;
  settings.default_arm = options.arm;
  return settings;
}

// TensorBoard log directories and curves CSVs: runs with curves, stored as a ladder.
int importRuns(const ImportOptions& options, const std::vector<imports::ImportedRun>& runs,
               const std::string& name, const imports::ImportSettings& settings) {
  if (const auto problem = nameProblem(name))
    throw UserError("--name: ladder name \"" + shownText(name) + "\" " + *problem + ". " +
                    nameRuleHint());
  if (runs.size() > size_t(ladder::kMaxLadderRuns))
    throw UserError(options.csv + ": " + std::to_string(runs.size()) +
                    " runs; an import holds at most " + std::to_string(ladder::kMaxLadderRuns) +
                    " (as a ladder holds at most that many runs). Import its parts under "
                    "separate names");
  std::vector<imports::ImportedRunFacts> facts;
  for (const auto& run : runs) facts.push_back(imports::importFacts(run, settings));
  auto db = storage::Database::open(options.db_path);
  const storage::ImportedLadderSummary summary =
      storage::storeImportedLadder(*db, name, options.csv, runs, facts);
  std::printf(
      "imported %zu run(s) (%zu metric rows) from %s as ladder \"%s\" into %s%s\nsee them with: "
      "deepladder status --db %s --ladder %s\nfit them with: deepladder fit --db %s --ladder %s\n",
      summary.runs, summary.rows, options.csv.c_str(), name.c_str(), options.db_path.c_str(),
      summary.replaced ? " (replacing the earlier import of that name)" : "",
      options.db_path.c_str(), name.c_str(), options.db_path.c_str(), name.c_str());
  return 0;
}

// The directory's name, or the file's name without its extension.
std::string defaultName(const std::string& path) {
  std::filesystem::path p = std::filesystem::absolute(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return std::filesystem::is_directory(path) ? p.filename().string() : p.stem().string();
}

int runImport(const ImportOptions& options) {
  const std::string name = options.name.empty() ? defaultName(options.csv) : options.name;
  const imports::ImportSettings settings = importSettings(options);
  if (std::filesystem::is_directory(options.csv))
    return importRuns(options, imports::readTensorBoardLogdir(options.csv, settings), name,
                      settings);
  const std::string text = readTextFile(options.csv);
  if (imports::looksLikeMetricsCsv(text))
    return importRuns(options, imports::parseMetricsCsv(text, options.csv, settings), name,
                      settings);
  if (!options.tags.empty() || !options.sets.empty() ||
      options.final_metric != imports::defaultImportSettings().final_metric)
    throw UserError(options.csv +
                    ": a results CSV (arm,compute_flops,val_loss) holds one point per run, no "
                    "curves or options: --tag, --set and --final-metric apply to TensorBoard log "
                    "directories and curves CSVs (run,step,metric,value)");
  return importResultsCsv(options, name);
}

CommandRegistrar register_import("import", 49, [](CLI::App& cli) {
  auto o = std::make_shared<ImportOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "import",
      "Store a ladder trained elsewhere: a TensorBoard log directory, a curves CSV "
      "(run,step,metric,value,OPTIONS...) or a results CSV (arm,compute_flops,val_loss[,params,"
      "tokens,depth])");
  cmd->add_option("source", o->csv,
                  "TensorBoard log directory (one subdirectory per run) or one run's directory, "
                  "curves CSV or results CSV")
      ->required();
  cmd->add_option("--db", o->db_path, "SQLite database (created if absent)")->capture_default_str();
  cmd->add_option("--name", o->name,
                  "Ladder or source name (default: the directory's name, or the file's name "
                  "without .csv)");
  cmd->add_option("--tag", o->tags,
                  "TAG=KEY: store the scalar TAG (a curves CSV's metric) as metric KEY, e.g. "
                  "--tag eval/lm_loss=val/loss; TAG= drops it. Repeatable")
      ->allow_extra_args(false)
      ->take_all();
  cmd->add_option("--set", o->sets,
                  "KEY=VALUE: an option of every run, over its own, e.g. --set arm=vanilla or "
                  "--set flops=1.2e18. Repeatable")
      ->allow_extra_args(false)
      ->take_all();
  cmd->add_option("--final-metric", o->final_metric,
                  "Metric key whose last value is a run's final loss (unless its options give "
                  "final_loss)")
      ->capture_default_str();
  cmd->add_option("--arm", o->arm, "Arm of runs whose options name none")->capture_default_str();
  cmd->add_flag("--allow-duplicates", o->allow_duplicates,
                "Results CSV: accept several rows with the same arm and compute (distinct seeds "
                "of one rung)");
  cmd->add_flag("--replace", o->replace,
                "Results CSV: replace the points of a name imported before");
  cmd->callback([o] { commandExitCode() = runImport(*o); });
});

}  // namespace
}  // namespace deepladder::app
