// `deepladder export --csv FILE --format md|csv|tex|json [--out FILE]`: fits the frontier of a
// results CSV (same options as `fit`) and writes the scaling table: per arm gamma +- se, A, E,
// measured and projected multipliers with intervals. Wiring only; the tables are in fitting/.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "app/command_registry.h"
#include "core/errors.h"
#include "fitting/frontier_fit.h"
#include "fitting/results_csv.h"
#include "fitting/scaling_table.h"

namespace deepladder::app {
namespace {

struct ExportOptions {
  std::string csv;
  std::string format = "md";
  std::string out;
  std::string at = "1e20,1e22,1e24,1e26";
  fitting::FrontierOptions frontier = fitting::defaultFrontierOptions();
};

int runExport(ExportOptions options) {
  std::stringstream list(options.at);
  std::string item;
  options.frontier.at.clear();
  while (std::getline(list, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(v > 0) || !std::isfinite(v))
      throw UserError("--at: '" + item + "' is not a positive compute. Give e.g. 1e20,1e22");
    options.frontier.at.push_back(v);
  }
  const auto result = fitting::fitFrontier(fitting::readResultsCsv(options.csv), options.frontier);
  const std::string text = fitting::scalingTable(result, options.format);
  if (options.out.empty()) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  std::ofstream out(options.out, std::ios::binary);
  if (!(out << text))
    throw UserError("--out: cannot write " + options.out + ". Check the folder exists");
  std::fprintf(stderr, "wrote %s\n", options.out.c_str());
  return 0;
}

CommandRegistrar reg("export", 51, [](CLI::App& cli) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "export", "Write the scaling table of a frontier fit as Markdown, CSV, LaTeX or JSON");
  cmd->add_option("--csv", o->csv, "Results CSV: arm,compute_flops,val_loss[,...]")->required();
  cmd->add_option("--format", o->format, "md | csv | tex | json")
      ->check(CLI::IsMember({"md", "csv", "tex", "json"}))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Output file (default: standard output)");
  cmd->add_option("--baseline", o->frontier.baseline, "Baseline arm")->capture_default_str();
  cmd->add_option("--c-ref", o->frontier.c_ref, "Reference compute C0")->capture_default_str();
  cmd->add_option("--bootstrap", o->frontier.bootstrap, "Bootstrap resamples (0 = none)")
      ->capture_default_str();
  cmd->add_option("--at", o->at, "Computes for projected multipliers, comma-separated")
      ->capture_default_str();
  cmd->add_flag("--joint", o->frontier.joint, "Fit one E jointly across all arms");
  cmd->callback([o] { commandExitCode() = runExport(*o); });
});

}  // namespace
}  // namespace deepladder::app
