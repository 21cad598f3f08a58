// `deepladder train RUN.toml --db runs.db`: one run through a worker process, every metric into
// SQLite. Input is validated before anything is written.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/command_registry.h"
#include "app/ladder_runner.h"
#include "core/errors.h"
#include "core/flop_model.h"
#include "core/ladder/run_plan.h"
#include "core/names.h"
#include "core/run_config.h"
#include "core/run_status.h"
#include "core/safe_file.h"
#include "core/safe_text.h"
#include "core/terminal_progress.h"
#include "storage/database.h"
#include "storage/work_root.h"
#include "trainers/data/ladder_data.h"
#include "trainers/data/run_data_check.h"

namespace deepladder::app {
namespace {

namespace fs = std::filesystem;

struct TrainOptions {
  std::string config_path;
  std::string db_path = "runs.db";
  std::string workdir;
  std::string worker;
  int64_t threads = -1;
};

int runTrain(const TrainOptions& options) {
  RunConfig config = loadRunConfigToml(options.config_path);
  if (options.threads >= 0) config.train.threads = options.threads;
  // The run's slot pins its GPU (CUDA_VISIBLE_DEVICES), as in a ladder: inside it, "cuda:N" is
  // the slot's one device, "cuda".
  std::string gpus = "auto";
  if (config.train.device.rfind("cuda:", 0) == 0) {
    gpus = config.train.device.substr(5);
    config.train.device = "cuda";
  }
  // Before anything is stored: the data opens and fits the vocabulary, and the run does not read
  // its training split more than data.max_epochs times.
  data::checkRunData({{&config, options.config_path}});
  data::requireDataBudgets({data::runDataBudget(config)}, options.config_path);

  auto db = storage::Database::open(options.db_path);
  const fs::path db_dir = fs::absolute(options.db_path).parent_path();
  const fs::path work_root =
      options.workdir.empty() ? db_dir / "deepladder-work" : fs::absolute(options.workdir);

  std::error_code ec;
  fs::create_directories(work_root, ec);
  if (ec || access(work_root.c_str(), W_OK) != 0)
    throw UserError(work_root.string() + ": the work directory is not writable" +
                    (ec ? " (" + ec.message() + ")" : std::string()) +
                    ". Pass --workdir to a writable place");
  storage::claimWorkRoot(*db, work_root.string());  // never another database's run directories

  storage::RunRecord run;
  run.name = config.name;
  run.arm = "single";
  run.seed = config.train.seed;
  run.config_json = dumpJson(toJson(config));
  run.config_hash = configHash(config);
  run.plan = ladder::planRunConfig(config, 0);
  run.params = run.plan.params;
  run.flops_per_token = run.plan.flops_per_token;
  run.status = RunStatus::kQueued;
  run.id = db->insertRun(run);
  const fs::path run_dir = work_root / "single" / (std::to_string(run.id) + "-" + config.name);
  requireInsideDirectory(work_root.string(), run_dir.string());
  fs::create_directories(run_dir, ec);
  if (ec) {
    db->setRunStatus(run.id, RunStatus::kFailed,
                     "cannot create the work directory " + run_dir.string());
    throw UserError(run_dir.string() + ": cannot create the run's work directory (" + ec.message() +
                    "). Pass --workdir to a writable place");
  }
  requireRealDirectory(run_dir.string(), "the run directory");
  writeFileAtomically((run_dir / "config.json").string(), dumpJson(toJson(config), 2) + "\n",
                      "the run config");
  run.workdir = run_dir.string();
  db->updateRun(run);

  std::fprintf(stderr, "deepladder: run %lld \"%s\": %s parameters, %s FLOPs/token, %lld steps\n",
               (long long)run.id, config.name.c_str(), formatCount(double(run.params)).c_str(),
               formatCount(run.flops_per_token).c_str(), (long long)config.train.steps);
  // A queue of one: the same scheduler, worker command line and ingester as a ladder's runs.
  // No retries (a crash is reported, and `deepladder resume` continues the run); the slot
  // gets the config's threads (0 = every core) and its device.
  ladder::Resources resources;
  resources.devices = config.train.device == "cpu" ? "cpu" : gpus;
  resources.slots = 1;
  resources.threads_per_slot = config.train.threads;
  resources.retries = 0;
  LadderRunOptions run_options{options.db_path, options.worker, true, {}, {}};
  const bool stopped = runSingleRunQueue(*db, run.id, resources, run_options);
  const std::optional<storage::RunRecord> settled = db->run(run.id);
  struct {
    RunStatus status;
    std::string message;
  } result{settled ? settled->status : RunStatus::kFailed, settled ? settled->error : ""};
  if (stopped && result.status == RunStatus::kInterrupted)
    result.message = "stopped; 'deepladder resume --db " + options.db_path + "' continues it";

  std::optional<storage::RunRecord> after = db->run(run.id);
  if (result.status == RunStatus::kFinished && after) {
    std::printf("run %lld finished: %lld steps, %s tokens, %.3e FLOPs, final val loss %.4f\n",
                (long long)run.id, (long long)after->step,
                formatCount(double(after->tokens)).c_str(), after->flops,
                after->final_loss.value_or(NAN));
    std::printf("database: %s   work dir: %s\n", fs::absolute(options.db_path).c_str(),
                run_dir.c_str());
    return 0;
  }
  std::fprintf(stderr, "deepladder: run %lld %s: %s\n", (long long)run.id, toString(result.status),
               result.message.c_str());
  if (result.status == RunStatus::kDiverged) return 3;
  if (result.status == RunStatus::kInterrupted) return 130;
  return 1;
}

CommandRegistrar register_train("train", 10, [](CLI::App& cli) {
  auto options = std::make_shared<TrainOptions>();
  CLI::App* cmd =
      cli.add_subcommand("train", "Train one run (a run TOML file) and store its metrics");
  cmd->add_option("config", options->config_path, "Run config (TOML)")->required();
  cmd->add_option("--db", options->db_path, "SQLite database (created if absent)")
      ->capture_default_str();
  cmd->add_option("--workdir", options->workdir,
                  "Where checkpoints and logs go (default: deepladder-work beside the database)");
  cmd->add_option("--worker", options->worker,
                  "Path of deepladder-worker (default: beside deepladder)");
  cmd->add_option("--threads", options->threads,
                  "CPU threads for the worker (default: config, 0 = all)");
  cmd->callback([options] { commandExitCode() = runTrain(*options); });
});

}  // namespace
}  // namespace deepladder::app
