// `deepladder export-weights RUN_ID --out model.safetensors [--step N] [--names hf-llama]
// [--db runs.db]`: a run's model as safetensors with a JSON description beside it. The CLI does
// not link LibTorch: it finds the run's config and directory in the database and runs
// deepladder-worker --export-weights (trainers/weights_export.h), which loads the checkpoint and
// writes the files. Both files are checked before the worker starts (core/weights_outputs.h): not
// the database or its -wal/-shm, nothing inside a work directory (the run's own checkpoints), a
// regular file or a new one, and the description not the weights themselves (--out w.json).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/command_registry.h"
#include "app/ladder_runner.h"
#include "core/errors.h"
#include "core/weights_outputs.h"
#include "core/worker_process.h"
#include "storage/database.h"
#include "storage/protected_outputs.h"

namespace deepladder::app {
namespace {

struct ExportWeightsOptions {
  int64_t run_id = 0;
  std::string out;
  int64_t step = -1;
  std::string names = "deepladder";
  std::string db_path = "runs.db";
  std::string worker_path;
};

int runExportWeights(const ExportWeightsOptions& options) {
  if (access(options.db_path.c_str(), F_OK) != 0)
    throw UserError(options.db_path + ": no such database. Pass --db");
  if (options.names != "deepladder" && options.names != "hf-llama")
    throw UserError("--names: unknown layout \"" + options.names +
                    "\". Use deepladder or hf-llama");
  auto db = storage::Database::open(options.db_path, /*read_only=*/true);
  const auto run = db->run(options.run_id);
  if (!run)
    throw UserError("run " + std::to_string(options.run_id) + " is not in " + options.db_path +
                    ". See 'deepladder status' for run ids");
  if (run->workdir.empty() || access(run->workdir.c_str(), F_OK) != 0)
    throw UserError("run " + std::to_string(options.run_id) + ": its directory \"" + run->workdir +
                    "\" is gone, and its checkpoints with it");
  // Neither file may replace the database, a checkpoint or anything else of a work directory.
  ProtectedPaths inputs = storage::databaseInputs(*db, options.db_path);
  inputs.addDirectory(run->workdir, "the run's directory");
  requireWeightsOutputs(options.out, inputs);
  db.reset();
  // The worker runs in this folder too, but an absolute path leaves no doubt.
  const std::string out = std::filesystem::absolute(options.out).string();
  // The config as stored with the run, beside its checkpoints.
  const std::string config_path = run->workdir + "/export-weights.config.json";
  {
    std::ofstream config(config_path);
    config << run->config_json << "\n";
    if (!config) throw UserError(config_path + ": cannot write the run config for the worker");
  }
  ProcessSpec spec;
  spec.argv = {options.worker_path.empty() ? findWorkerProgram() : options.worker_path,
               "--config",
               config_path,
               "--workdir",
               run->workdir,
               "--run-id",
               std::to_string(options.run_id),
               "--export-weights",
               out,
               "--names",
               options.names};
  if (options.step >= 0) {
    spec.argv.push_back("--step");
    spec.argv.push_back(std::to_string(options.step));
  }
  spec.env["OMP_WAIT_POLICY"] = "PASSIVE";
  WorkerProcess worker(spec);
  const ProcessExit exit = worker.runToEnd([](const std::string& line) {
    if (!line.empty() && line.front() != '{') std::printf("%s\n", line.c_str());
  });
  std::remove(config_path.c_str());
  if (!exit.exited) throw std::runtime_error("export-weights: the worker was " + exit.describe());
  return exit.code;  // the worker said what went wrong on stderr
}

CommandRegistrar register_export_weights("export-weights", 36, [](CLI::App& cli) {
  auto options = std::make_shared<ExportWeightsOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "export-weights",
      "Write a run's model as safetensors (+ a JSON description beside it) from a checkpoint");
  cmd->add_option("run", options->run_id, "Run id (see 'deepladder status')")->required();
  cmd->add_option("--out", options->out,
                  "The .safetensors file to write (its JSON description goes beside it, .json "
                  "for its extension); not the database, nothing inside a work directory")
      ->required();
  cmd->add_option("--step", options->step, "Checkpoint step (default: the newest valid one)");
  cmd->add_option("--names", options->names,
                  "Tensor names: deepladder, or hf-llama (Hugging Face Llama layout; refused "
                  "for models Llama cannot express)")
      ->capture_default_str();
  cmd->add_option("--db", options->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--worker", options->worker_path,
                  "deepladder-worker program (default: $DEEPLADDER_WORKER or beside deepladder)");
  cmd->callback([options] { commandExitCode() = runExportWeights(*options); });
});

}  // namespace
}  // namespace deepladder::app
