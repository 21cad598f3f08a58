// `deepladder import FILE.csv --db runs.db [--name NAME]`: stores a results CSV
// (arm,compute_flops,val_loss[,params,tokens,depth]) as an external source that `fit`, `export`
// and `plot` read like a ladder. Re-importing the same name replaces its points.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "app/command_registry.h"
#include "core/errors.h"
#include "fitting/results_csv.h"
#include "storage/database.h"

namespace deepladder::app {
namespace {

struct ImportOptions {
  std::string csv;
  std::string db_path = "runs.db";
  std::string name;
};

std::optional<double> optionalValue(double v) {
  if (std::isfinite(v)) return v;
  return std::nullopt;
}

int runImport(const ImportOptions& options) {
  const fitting::ResultsTable table = fitting::readResultsCsv(options.csv);  // validated first
  const std::string name =
      options.name.empty() ? std::filesystem::path(options.csv).stem().string() : options.name;
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
  db->replaceExternalPoints(name, points);
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
  cmd->callback([o] { commandExitCode() = runImport(*o); });
});

}  // namespace
}  // namespace deepladder::app
