// `deepladder import FILE.csv --db runs.db [--name NAME]`: stores a results CSV
// (arm,compute_flops,val_loss[,params,tokens,depth]) as an external source that `fit`, `export`
// and `plot` read like a ladder. A trained ladder's name is refused; importing a name again
// replaces its points only with --replace (storage/imported_source.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "app/command_registry.h"
#include "core/errors.h"
#include "core/ladder/ladder_spec.h"
#include "core/names.h"
#include "core/safe_text.h"
#include "fitting/results_csv.h"
#include "storage/database.h"
#include "storage/imported_source.h"

namespace deepladder::app {
namespace {

struct ImportOptions {
  std::string csv;
  std::string db_path = "runs.db";
  std::string name;
  bool allow_duplicates = false;
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

int runImport(const ImportOptions& options) {
  const fitting::ResultsTable table = fitting::readResultsCsv(options.csv);  // validated first
  const std::string name =
      options.name.empty() ? std::filesystem::path(options.csv).stem().string() : options.name;
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

CommandRegistrar reg("import", 49, [](CLI::App& cli) {
  auto o = std::make_shared<ImportOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "import", "Store a results CSV (arm,compute_flops,val_loss[,params,tokens,depth]) for fits");
  cmd->add_option("csv", o->csv, "Results CSV")->required();
  cmd->add_option("--db", o->db_path, "SQLite database (created if absent)")->capture_default_str();
  cmd->add_option("--name", o->name, "Source name (default: the file name without .csv)");
  cmd->add_flag("--allow-duplicates", o->allow_duplicates,
                "Accept several rows with the same arm and compute (distinct seeds of one rung)");
  cmd->add_flag("--replace", o->replace, "Replace the points of a name imported before");
  cmd->callback([o] { commandExitCode() = runImport(*o); });
});

}  // namespace
}  // namespace deepladder::app
