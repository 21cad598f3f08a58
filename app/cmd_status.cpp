// `deepladder status --db runs.db`: every run with its status, progress and last losses.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>

#include "app/command_registry.h"
#include "core/errors.h"
#include "core/terminal_progress.h"
#include "storage/database.h"

namespace deepladder::app {
namespace {

struct StatusOptions {
  std::string db_path = "runs.db";
  std::string ladder;
};

std::string lossText(const std::optional<double>& v) {
  if (!v) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4f", *v);
  return buffer;
}

int runStatus(const StatusOptions& options) {
  if (access(options.db_path.c_str(), F_OK) != 0)
    throw UserError(options.db_path + ": no such database. Train something first, or pass --db");
  auto db = storage::Database::open(options.db_path, /*read_only=*/true);
  std::optional<int64_t> ladder_id;
  if (!options.ladder.empty()) {
    ladder_id = db->findLadder(options.ladder);
    if (!ladder_id)
      throw UserError("ladder \"" + options.ladder + "\" is not in " + options.db_path);
  }
  const auto runs = db->listRuns(ladder_id);
  if (runs.empty()) {
    std::printf("no runs in %s\n", options.db_path.c_str());
    return 0;
  }
  std::printf("%5s  %-12s %-22s %-11s %8s %10s %10s %10s %10s\n", "id", "ladder", "run", "status",
              "step", "tokens", "FLOPs", "train", "val");
  for (const auto& s : runs) {
    const auto& r = s.run;
    std::string name = r.name;
    if (!r.arm.empty() && r.arm != "single") name = r.arm + "/" + r.name;
    if (name.size() > 22) name = name.substr(0, 21) + "~";
    char flops[32];
    std::snprintf(flops, sizeof flops, "%.2e", r.flops);
    std::printf("%5lld  %-12s %-22s %-11s %8lld %10s %10s %10s %10s\n", (long long)r.id,
                (s.ladder_name.empty() ? "-" : s.ladder_name.substr(0, 12)).c_str(), name.c_str(),
                r.status.c_str(), (long long)r.step, formatCount(double(r.tokens)).c_str(), flops,
                lossText(s.last_train_loss).c_str(), lossText(s.last_val_loss).c_str());
    if (!r.error.empty() && r.status != "finished") std::printf("       %s\n", r.error.c_str());
  }
  return 0;
}

CommandRegistrar reg("status", 30, [](CLI::App& cli) {
  auto options = std::make_shared<StatusOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "status", "List runs: status, step, tokens, FLOPs, last train and validation loss");
  cmd->add_option("--db", options->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--ladder", options->ladder, "Only this ladder (name or hash)");
  cmd->callback([options] { commandExitCode() = runStatus(*options); });
});

}  // namespace
}  // namespace deepladder::app
