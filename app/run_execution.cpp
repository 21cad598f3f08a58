// Runs one stored run through a worker process and ingests its output (see run_execution.h).
#include "app/run_execution.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>

#include "core/errors.h"
#include "core/protocol.h"
#include "core/run_dir_lock.h"
#include "core/run_outcome.h"
#include "core/terminal_progress.h"
#include "core/worker_process.h"
#include "storage/database.h"
#include "storage/ingester.h"

namespace deepladder::app {

namespace {

std::atomic<bool> g_interrupted{false};

void onInterrupt(int) { g_interrupted = true; }

double nowSeconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// The last non-empty line of the worker's stderr log, to say why it died.
std::string lastLogLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

}  // namespace

void installInterruptHandlers() {
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool interruptRequested() { return g_interrupted.load(); }

std::string findWorkerProgram() {
  if (const char* env = std::getenv("DEEPLADDER_WORKER"); env && *env) return env;
  return executableDirectory() + "/deepladder-worker";
}

RunExecutionResult executeRun(storage::Database& db, int64_t run_id,
                              const RunExecutionOptions& options) {
  std::optional<storage::RunRecord> run = db.run(run_id);
  if (!run) throw UserError("run " + std::to_string(run_id) + " is not in the database");
  // This process drives the run from here on: a `resume` elsewhere sees it alive and leaves it.
  const auto owner = RunDirLock::acquire(run->workdir, kOwnerLockName, 0);
  if (!owner)
    throw UserError("run " + std::to_string(run_id) + " is being run by another process (pid " +
                    std::to_string(lockHolder(run->workdir, kOwnerLockName).value_or(-1)) +
                    "); wait for it to end");
  const std::string config_path = run->workdir + "/config.json";
  const std::string log_path = run->workdir + "/worker.log";

  ProcessSpec spec;
  spec.argv = {options.worker_path.empty() ? findWorkerProgram() : options.worker_path,
               "--config", config_path, "--workdir", run->workdir, "--run-id",
               std::to_string(run_id)};
  if (options.resume) spec.argv.push_back("--resume");
  spec.stderr_path = log_path;
  spec.stdout_copy_path = run->workdir + "/worker.jsonl";

  run->status = "running";
  run->attempt += 1;
  run->error.clear();
  db.updateRun(*run);

  storage::Ingester ingester(db, run_id);
  TerminalProgress progress(stderr);
  ProgressState state;
  state.label = run->name;
  state.total_steps = options.total_steps;
  const double start = nowSeconds();
  std::string last_error;

  WorkerProcess worker(spec);
  bool interrupted = false;
  auto on_line = [&](const std::string& line) {
    std::optional<protocol::Message> message = protocol::decode(line);
    if (!message) return;
    ingester.apply(*message);
    if (const auto* metric = std::get_if<protocol::Metric>(&*message)) {
      state.step = metric->step;
      state.elapsed_s = nowSeconds() - start;
      for (const auto& [key, value] : metric->values) {
        if (key == "train/loss") state.train_loss = value;
        if (key == "val/loss") state.val_loss = value;
        if (key == "tokens_per_s") state.tokens_per_s = value;
      }
      if (options.show_progress) progress.update(state);
    } else if (const auto* error = std::get_if<protocol::Error>(&*message)) {
      last_error = error->message;
    }
  };
  auto on_idle = [&] {
    if (!interrupted && interruptRequested()) {
      interrupted = true;
      worker.terminate(SIGTERM);
    }
  };
  ProcessExit exit = worker.runToEnd(on_line, on_idle, 100);
  ingester.flush();
  if (options.show_progress) progress.finish("");

  if (last_error.empty() && !ingester.sawDone()) last_error = lastLogLine(log_path);
  std::optional<std::string> done_status;
  std::string done_message;
  if (auto done = ingester.done()) {
    done_status = done->status;
    done_message = done->message;
  }
  RunOutcome outcome = decideRunOutcome(done_status, done_message, exit, interrupted, last_error);
  db.setRunStatus(run_id, outcome.status, outcome.status == "finished" ? "" : outcome.message);
  return {outcome.status, outcome.message};
}

}  // namespace deepladder::app
