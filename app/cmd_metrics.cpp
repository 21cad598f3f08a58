// `deepladder metrics RUN_ID --db runs.db [--key K] [--csv]`: one run's curve(s).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "app/command_registry.h"
#include "app/run_id_option.h"
#include "core/errors.h"
#include "storage/database.h"

namespace deepladder::app {
namespace {

struct MetricsOptions {
  int64_t run_id = 0;
  std::string db_path = "runs.db";
  std::vector<std::string> keys;
  bool csv = false;
};

int runMetrics(const MetricsOptions& options) {
  if (access(options.db_path.c_str(), F_OK) != 0)
    throw UserError(options.db_path + ": no such database. Pass --db");
  auto db = storage::Database::open(options.db_path, /*read_only=*/true);
  if (!db->run(options.run_id))
    throw UserError("run " + std::to_string(options.run_id) + " is not in " + options.db_path +
                    ". See 'deepladder status' for run ids");
  std::vector<std::string> keys = options.keys;
  const std::vector<std::string> available = db->metricKeys(options.run_id);
  if (keys.empty()) keys = available;
  for (const auto& key : keys) {
    bool known = false;
    for (const auto& a : available) known = known || a == key;
    if (!known) {
      std::string list;
      for (const auto& a : available) list += (list.empty() ? "" : ", ") + a;
      throw UserError("run " + std::to_string(options.run_id) + " has no metric \"" + key +
                      "\". It has: " + (list.empty() ? "none yet" : list));
    }
  }
  if (options.csv)
    std::printf("key,step,tokens,flops,value,wall_s\n");
  else
    std::printf("%-14s %8s %12s %12s %12s %9s\n", "key", "step", "tokens", "flops", "value",
                "wall_s");
  for (const auto& key : keys) {
    for (const auto& p : db->readMetric(options.run_id, key)) {
      if (options.csv)
        std::printf("%s,%lld,%lld,%.17g,%.9g,%.6g\n", key.c_str(), (long long)p.step,
                    (long long)p.tokens, p.flops, p.value, p.wall);
      else
        std::printf("%-14s %8lld %12lld %12.4e %12.6f %9.2f\n", key.c_str(), (long long)p.step,
                    (long long)p.tokens, p.flops, p.value, p.wall);
    }
  }
  return 0;
}

CommandRegistrar register_metrics("metrics", 35, [](CLI::App& cli) {
  auto options = std::make_shared<MetricsOptions>();
  CLI::App* cmd = cli.add_subcommand("metrics", "Print one run's metric curves (table or CSV)");
  cmd->add_option("run", options->run_id, "Run id (see 'deepladder status')")
      ->required()
      ->check(runIdCheck());
  cmd->add_option("--db", options->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--key", options->keys,
                  "Metric key(s), e.g. train/loss, val/loss (default: all)");
  cmd->add_flag("--csv", options->csv, "CSV output: key,step,tokens,flops,value,wall_s");
  cmd->callback([options] { commandExitCode() = runMetrics(*options); });
});

}  // namespace
}  // namespace deepladder::app
