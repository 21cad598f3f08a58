// `deepladder eval RUN_ID --db runs.db --passes 1..16`: test-time depth. The scheduler runs the
// worker in its evaluation mode (deepladder-worker --eval-passes, trainers/eval_depth.h) on the
// run's newest checkpoint, and the ingester stores validation loss against core passes K' as the
// metric "val/loss@passes" with step = K' (tokens and flops: the checkpoint's); then the table is
// printed. The run's status and progress are left alone; `deepladder metrics RUN_ID --key
// val/loss@passes` shows the points too.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>

#include "app/command_registry.h"
#include "app/ladder_runner.h"
#include "app/run_id_option.h"
#include "core/errors.h"
#include "core/metric_keys.h"
#include "core/protocol.h"
#include "core/run_status.h"
#include "storage/database.h"
#include "storage/evaluation_run_store.h"
#include "storage/queue_execution.h"

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
  if (run->status != RunStatus::kFinished && run->status != RunStatus::kDiverged)
    throw UserError("run " + std::to_string(options.run_id) + " is " + toString(run->status) +
                    "; 'eval' reads a finished run's newest checkpoint");
  // An evaluation queue of one: the same scheduler, worker command line and ingester as
  // training; the ingester stores the val/loss@passes points and leaves the run as it was.
  auto store = std::make_unique<storage::EvaluationRunStore>(*db, *run, options.passes);
  storage::EvaluationRunStore& evaluation = *store;
  ladder::Resources resources;
  resources.devices = "cpu";
  resources.slots = 1;
  resources.retries = 0;
  storage::QueueExecution execution(
      std::move(store), resources,
      options.worker_path.empty() ? findWorkerProgram() : options.worker_path);
  std::optional<protocol::Done> done;
  execution.scheduler().onEvent([&](const scheduler::SchedulerEvent& e) {
    if (e.message)
      if (const auto* d = std::get_if<protocol::Done>(&*e.message)) done = *d;
  });
  execution.scheduler().run();
  const auto& outcome = evaluation.outcome();
  if (!outcome || outcome->status != RunStatus::kFinished || !done) {
    const std::string why = outcome ? outcome->message : "the evaluation did not start";
    if (why.rfind("bad input", 0) == 0) throw UserError("eval: " + why);
    throw std::runtime_error("eval of run " + std::to_string(options.run_id) + ": " + why +
                             " (log: " + run->workdir + "/eval.log)");
  }
  const std::vector<MetricPoint> points =
      db->readMetric(options.run_id, metric_keys::kValLossAtPasses);
  std::printf("run %lld (%s), %s\n", (long long)options.run_id, run->name.c_str(),
              done->message.c_str());
  std::printf("%8s %14s\n", "passes", "val/loss");
  for (const auto& point : points)
    std::printf("%8lld %14.6f\n", (long long)point.step, point.value);
  std::printf("stored %zu points as metric val/loss@passes\n", points.size());
  return 0;
}

CommandRegistrar register_eval("eval", 37, [](CLI::App& cli) {
  auto options = std::make_shared<EvalOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "eval", "Test-time depth: validation loss of a looped/recurrent run at other core passes K'");
  cmd->add_option("run", options->run_id, "Run id (see 'deepladder status')")
      ->required()
      ->check(runIdCheck());
  cmd->add_option("--db", options->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--passes", options->passes, "K' values: a range 1..16 or a list 1,2,4,8")
      ->capture_default_str();
  cmd->add_option("--worker", options->worker_path,
                  "deepladder-worker program (default: $DEEPLADDER_WORKER or beside deepladder)");
  cmd->callback([options] { commandExitCode() = runEval(*options); });
});

}  // namespace
}  // namespace deepladder::app
