// `deepladder eval RUN_ID --db runs.db --passes 1..16`: test-time depth. Runs the worker in its
// evaluation mode (deepladder-worker --eval-passes, trainers/eval_depth.h) on the run's newest
// checkpoint and stores validation loss against core passes K' as the metric "val/loss@passes"
// with step = K' (tokens and flops: the checkpoint's), then prints the table. The run's status and
// progress are left alone; `deepladder metrics RUN_ID --key val/loss@passes` shows the points too.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>

#include "app/command_registry.h"
#include "app/run_execution.h"
#include "core/errors.h"
#include "core/protocol.h"
#include "core/worker_process.h"
#include "storage/database.h"

namespace deepladder::app {
namespace {

struct EvalOptions {
  int64_t run_id = 0;
  std::string db_path = "runs.db";
  std::string passes = "1..16";
  std::string worker_path;
};

int runEval(const EvalOptions& options) {
  if (access(options.db_path.c_str(), F_OK) != 0)
    throw UserError(options.db_path + ": no such database. Pass --db");
  auto db = storage::Database::open(options.db_path);
  const auto run = db->run(options.run_id);
  if (!run)
    throw UserError("run " + std::to_string(options.run_id) + " is not in " + options.db_path +
                    ". See 'deepladder status' for run ids");
  ProcessSpec spec;
  spec.argv = {options.worker_path.empty() ? findWorkerProgram() : options.worker_path,
               "--config",
               run->workdir + "/config.json",
               "--workdir",
               run->workdir,
               "--run-id",
               std::to_string(options.run_id),
               "--eval-passes",
               options.passes};
  spec.stderr_path = run->workdir + "/eval.log";
  WorkerProcess worker(spec);
  std::vector<storage::MetricRow> rows;
  std::string error;
  std::optional<protocol::Done> done;
  const ProcessExit exit = worker.runToEnd([&](const std::string& line) {
    const auto message = protocol::decode(line);
    if (!message) return;
    if (const auto* metric = std::get_if<protocol::Metric>(&*message)) {
      for (const auto& [key, value] : metric->values)
        if (key == "val/loss@passes")
          rows.push_back(storage::MetricRow{options.run_id, key, metric->step, metric->tokens,
                                            metric->flops, value, metric->wall_s});
    } else if (const auto* e = std::get_if<protocol::Error>(&*message)) {
      error = e->message;
    } else if (const auto* d = std::get_if<protocol::Done>(&*message)) {
      done = *d;
    }
  });
  if (!error.empty() || !done) {
    const std::string why = !error.empty() ? error : "the worker ended with " + exit.describe();
    if (exit.exited && exit.code == kExitBadInput) throw UserError("eval: " + why);
    throw std::runtime_error("eval of run " + std::to_string(options.run_id) + ": " + why +
                             " (log: " + spec.stderr_path + ")");
  }
  db->writeMetrics(rows);
  std::printf("run %lld (%s), %s\n", (long long)options.run_id, run->name.c_str(),
              done->message.c_str());
  std::printf("%8s %14s\n", "passes", "val/loss");
  for (const auto& row : rows) std::printf("%8lld %14.6f\n", (long long)row.step, row.value);
  std::printf("stored %zu points as metric val/loss@passes\n", rows.size());
  return 0;
}

CommandRegistrar reg("eval", 37, [](CLI::App& cli) {
  auto options = std::make_shared<EvalOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "eval", "Test-time depth: validation loss of a looped/recurrent run at other core passes K'");
  cmd->add_option("run", options->run_id, "Run id (see 'deepladder status')")->required();
  cmd->add_option("--db", options->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--passes", options->passes, "K' values: a range 1..16 or a list 1,2,4,8")
      ->capture_default_str();
  cmd->add_option("--worker", options->worker_path,
                  "deepladder-worker program (default: $DEEPLADDER_WORKER or beside deepladder)");
  cmd->callback([options] { commandExitCode() = runEval(*options); });
});

}  // namespace
}  // namespace deepladder::app
