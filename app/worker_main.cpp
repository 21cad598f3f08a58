// deepladder-worker: trains one run and speaks the worker protocol (core/protocol.h) as JSON
// lines on stdout, one flushed line per message; human diagnostics go to stderr. Links only the
// trainers and core (no Qt, SQLite or Ceres), so it builds on any node that has LibTorch.
//
//   deepladder-worker --config RUN.(json|toml) --workdir DIR --run-id ID [--resume] [--max-steps N]
//                     [--threads N]
//   deepladder-worker --config RUN.(json|toml) --workdir DIR --run-id ID --eval-passes LIST
//   deepladder-worker --config RUN.(json|toml) --workdir DIR --run-id ID --export-weights OUT
//                     [--step N] [--names deepladder|hf-llama]
//   deepladder-worker --standby
//
// --standby: a warm standby of the local backend (core/scheduler/standby_pool.h): loads LibTorch,
// prints a ready line and reads its run assignment (the arguments above, the run's environment
// and log) as one JSON line on stdin, then runs as if started with them.
// --eval-passes 1..16 (or 1,2,4): evaluation mode, no training. Loads the run's newest valid
// checkpoint and emits one metric "val/loss@passes" per core pass count K' (step = K'), then done
// (trainers/eval_depth.h); `deepladder eval` runs it and stores the points.
// --export-weights OUT: no training. Writes the model of the run's newest valid checkpoint (or of
// step N) as safetensors to OUT, with its JSON description beside it (trainers/weights_export.h),
// and prints one line saying what it wrote; `deepladder export-weights` runs it.
// --threads overrides train.threads (the scheduler divides the cores among its CPU slots).
// How OpenMP threads wait between parallel regions is set by whoever launches the worker: libgomp
// reads it when it loads, before main. The scheduler (core/scheduler/backend.h,
// workerEnvironment) sets OMP_WAIT_POLICY=PASSIVE where workers share cores (spinning waiters
// steal the cores the others compute on: many times slower with two spinning workers on a busy
// 2-core machine), and GOMP_SPINCOUNT=300000 (spin briefly, then sleep) for a lone worker, whose
// many short parallel regions run far slower when every one must wake sleeping threads. A
// worker started by hand with neither variable says so on stderr and runs.
//
// With DEEPLADDER_RETURN_FREED_MEMORY=1 the worker sets glibc's malloc to give freed tensors back
// to the system at once (trainers/memory_usage.h; slower), so that its peak resident set, reported
// as the metric value peak_memory_gb, is what the memory plan counts.
//
// Every protocol line is also appended to <workdir>/protocol.jsonl (the worker's own record, from
// which a resumed run recovers what a killed scheduler never stored).
//
// A training worker (rank 0) holds <workdir>/worker.lock (core/run_dir_lock.h) while it runs, so
// two workers never train one run: a second one waits up to $DEEPLADDER_LOCK_WAIT_S seconds
// (default 60) for the first to end, then gives up. The worker dies with its parent
// (core/parent_guard.h): a killed scheduler or `train` leaves no worker training on.
//
// Exit status: 0 finished, diverged (an outcome, reported in Done) or stopped by --max-steps
// (no Done); 2 bad input (Error message names the file and field); 1 anything else (Error).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/disk_full.h"
#include "core/errors.h"
#include "core/parent_guard.h"
#include "core/protocol.h"
#include "core/run_config.h"
#include "core/run_dir_lock.h"
#include "core/run_status.h"
#include "core/safe_file.h"
#include "core/safe_text.h"
#include "core/startup_trace.h"
#include "core/worker_assignment.h"
#include "trainers/distributed.h"
#include "trainers/eval_depth.h"
#include "trainers/memory_usage.h"
#include "trainers/squaring/squaring_trainer.h"
#include "trainers/trainer.h"
#include "trainers/weights_export.h"

namespace {

using deepladder::UserError;
namespace protocol = deepladder::protocol;

constexpr const char* kUsage =
    "usage: deepladder-worker --config RUN.(json|toml) --workdir DIR --run-id ID [--resume] "
    "[--max-steps N] [--threads N] [--eval-passes 1..16] [--export-weights OUT [--step N] "
    "[--names deepladder|hf-llama]]";

struct WorkerArgs {
  std::string config_path;
  std::string workdir;
  std::string run_id;
  bool resume = false;
  int64_t max_steps = -1;
  int64_t threads = -1;
  std::string eval_passes;     // non-empty: evaluation mode
  std::string export_weights;  // non-empty: export mode, the .safetensors to write
  std::optional<int64_t> export_step;
  std::string export_names = "deepladder";
};

// The shared libraries' static initializers (LibTorch's operator registration) run before this
// program's own: this mark comes once every library is loaded and initialized.
[[maybe_unused]] const bool libraries_loaded_mark =
    (deepladder::startupMark("libraries-initialized"), true);

// The worker's own copy of what it sends (protocol::kWorkerLogName), -1 when not kept.
int worker_log_fd = -1;

void send(const protocol::Message& message) {
  if (deepladder::parentGone()) {
    std::cerr << "deepladder-worker: the process that started this worker is gone; stopping\n";
    std::_Exit(1);
  }
  if (std::holds_alternative<protocol::Hello>(message)) deepladder::startupMark("hello");
  const std::string line = protocol::encode(message) + '\n';
  if (worker_log_fd >= 0) {
    // One write() per line: a killed worker leaves whole lines (at worst a torn last one).
    [[maybe_unused]] const ssize_t written = ::write(worker_log_fd, line.data(), line.size());
  }
  std::cout << line << std::flush;
}

// Keeps every protocol line in <workdir>/protocol.jsonl too (rank 0 only: it alone speaks), so a
// scheduler that dies before storing them loses nothing (storage/worker_log_replay.h).
void keepWorkerLog(const std::string& workdir) {
  if (deepladder::trainers::distributed::rendezvousFromEnvironment().rank != 0) return;
  std::error_code ignored;  // the trainer reports an unusable workdir itself
  std::filesystem::create_directories(workdir, ignored);
  const std::string path = workdir + "/" + protocol::kWorkerLogName;
  try {
    worker_log_fd = deepladder::openRegularFile(path, O_WRONLY | O_CREAT | O_APPEND,
                                                "the worker's protocol log");
  } catch (const std::exception& e) {
    std::cerr << "deepladder-worker: " << e.what()
              << "; carrying on without the worker's own protocol log\n";
  }
}

WorkerArgs parseArgs(const std::vector<std::string>& argv) {
  WorkerArgs args;
  const size_t argc = argv.size();
  // An empty value is refused like a missing one: `--export-weights ""` once trained the run.
  auto value = [&](size_t& i, const std::string& flag) -> std::string {
    if (i + 1 >= argc || argv[i + 1].empty())
      throw UserError(flag + " needs a value" + (i + 1 < argc ? " (\"\" was given)" : "") + ". " +
                      kUsage);
    return argv[++i];
  };
  for (size_t i = 0; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--config")
      args.config_path = value(i, flag);
    else if (flag == "--workdir")
      args.workdir = value(i, flag);
    else if (flag == "--run-id")
      args.run_id = value(i, flag);
    else if (flag == "--resume")
      args.resume = true;
    else if (flag == "--max-steps") {
      const std::string text = value(i, flag);
      char* end = nullptr;
      args.max_steps = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || args.max_steps < 0)
        throw UserError("--max-steps: \"" + text + "\" is not a non-negative integer");
    } else if (flag == "--export-weights") {
      args.export_weights = value(i, flag);
    } else if (flag == "--step") {
      const std::string text = value(i, flag);
      char* end = nullptr;
      args.export_step = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || *args.export_step < 0)
        throw UserError("--step: \"" + text + "\" is not a non-negative integer");
    } else if (flag == "--names") {
      args.export_names = value(i, flag);
    } else if (flag == "--eval-passes") {
      args.eval_passes = value(i, flag);
    } else if (flag == "--threads") {
      const std::string text = value(i, flag);
      char* end = nullptr;
      args.threads = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || args.threads < 0)
        throw UserError("--threads: \"" + text + "\" is not a non-negative integer");
    } else {
      throw UserError("unknown argument \"" + flag + "\". " + kUsage);
    }
  }
  if (args.config_path.empty()) throw UserError(std::string("--config is required. ") + kUsage);
  if (args.workdir.empty()) throw UserError(std::string("--workdir is required. ") + kUsage);
  if (args.run_id.empty()) throw UserError(std::string("--run-id is required. ") + kUsage);
  return args;
}

deepladder::RunConfig loadConfig(const std::string& path) {
  const bool is_json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  if (!is_json) return deepladder::loadRunConfigToml(path);
  std::ifstream in(path);
  if (!in) throw UserError(path + ": cannot open the run config. Check the path");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw UserError(path + ": not valid JSON (" + e.what() +
                    "). Regenerate it with 'deepladder train'");
  }
  return deepladder::runConfigFromJson(json);
}

// Takes the run directory's worker lock (rank 0 of a data-parallel run only: the ranks share the
// directory), waiting for a previous worker of the run to end first.
std::unique_ptr<deepladder::RunDirLock> lockRunDirectory(const std::string& workdir) {
  if (deepladder::trainers::distributed::rendezvousFromEnvironment().rank != 0) return nullptr;
  std::error_code ignored;  // the lock reports an unusable workdir itself
  std::filesystem::create_directories(workdir, ignored);
  double wait_s = 60;
  if (const char* env = std::getenv("DEEPLADDER_LOCK_WAIT_S")) wait_s = std::atof(env);
  auto lock = deepladder::RunDirLock::acquire(workdir, deepladder::kWorkerLockName, wait_s);
  if (!lock) {
    const auto holder = deepladder::lockHolder(workdir, deepladder::kWorkerLockName);
    throw std::runtime_error(
        "another worker (pid " + std::to_string(holder.value_or(-1)) + ") is still training " +
        "the run in " + workdir + " after " + std::to_string(int(wait_s)) +
        " s; two workers must never share a run directory. Stop it, or wait and resume");
  }
  return lock;
}

// One line for a worker started with no OpenMP wait setting (too late to set one: libgomp has
// read the environment already).
void adviseOnOpenMpWaiting() {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) return;
  std::cerr << "deepladder-worker: OMP_WAIT_POLICY is unset, so OpenMP threads spin a while before "
               "they sleep; start the worker with OMP_WAIT_POLICY=PASSIVE when workers share cores "
               "(the scheduler does)\n";
}

// --standby: LibTorch is loaded and no thread started; say so and wait for the run on stdin
// (core/worker_assignment.h), then become its worker: its environment is set and stderr goes to
// its log before anything reads them. nullopt when stdin ends first (the scheduler let it go).
std::optional<deepladder::WorkerAssignment> awaitAssignment() {
  std::cout << deepladder::kStandbyReadyLine << '\n' << std::flush;
  std::string line;
  if (!std::getline(std::cin, line)) return std::nullopt;
  deepladder::WorkerAssignment assignment = deepladder::decodeAssignment(line);
  for (const auto& [name, value] : assignment.env) ::setenv(name.c_str(), value.c_str(), 1);
  if (!assignment.stderr_path.empty()) {
    const int fd = deepladder::openRegularFile(assignment.stderr_path,
                                               O_WRONLY | O_CREAT | O_APPEND, "the worker's log");
    {
      ::dup2(fd, STDERR_FILENO);
      ::close(fd);
    }
  }
  deepladder::startupMark("assigned");
  return assignment;
}

}  // namespace

int main(int argc, char** argv) {
  deepladder::startupMark("main");
  deepladder::watchParent();
  std::vector<std::string> argument_list(argv + 1, argv + argc);
  try {
    if (argument_list.size() == 1 && argument_list[0] == "--standby") {
      const auto assignment = awaitAssignment();
      if (!assignment) return 0;
      argument_list = assignment->args;
    }
    adviseOnOpenMpWaiting();
    deepladder::trainers::useReturningCpuAllocator();
    const WorkerArgs args = parseArgs(argument_list);
    deepladder::RunConfig config = loadConfig(args.config_path);
    if (args.threads >= 0) config.train.threads = args.threads;
    deepladder::startupMark("config-loaded");
    deepladder::trainers::TrainerOptions options;
    options.run_id = args.run_id;
    options.workdir = args.workdir;
    options.resume = args.resume;
    options.max_steps = args.max_steps;
    if (!args.export_weights.empty()) {
      deepladder::trainers::WeightsExportOptions request;
      request.run_id = args.run_id;
      request.workdir = args.workdir;
      request.out = args.export_weights;
      request.step = args.export_step;
      request.names = args.export_names;
      const auto written = deepladder::trainers::exportWeights(config, request);
      std::cout << "exported run " << args.run_id << " at step " << written.step << ": "
                << written.tensors << " tensors, " << written.bytes << " bytes to "
                << written.weights_path << " (description: " << written.description_path << ")"
                << std::endl;
      return 0;
    }
    if (!args.eval_passes.empty()) {
      const auto passes = deepladder::trainers::parsePassesList(args.eval_passes);
      std::cerr << "deepladder-worker: run " << args.run_id << " (" << config.name
                << "), evaluating at core passes " << args.eval_passes << "\n";
      deepladder::trainers::runPassesEvaluation(config, options, passes, send);
      return 0;
    }
    const auto lock = lockRunDirectory(args.workdir);
    keepWorkerLog(args.workdir);
    std::cerr << "deepladder-worker: run " << args.run_id << " (" << config.name << "), workdir "
              << args.workdir << (args.resume ? ", resuming" : "") << "\n";
    deepladder::startupMark("trainer-entered");
    const auto outcome =
        config.task == deepladder::Task::squaring  // the serial task has its own loop
            ? deepladder::trainers::runSquaringTraining(config, options, send)
            : deepladder::trainers::runTraining(config, options, send);
    std::cerr << "deepladder-worker: "
              << (outcome.status == deepladder::trainers::TrainStatus::kStopped
                      ? std::string("stopped at --max-steps")
                      : toString(outcome.status == deepladder::trainers::TrainStatus::kDiverged
                                     ? deepladder::RunStatus::kDiverged
                                     : deepladder::RunStatus::kFinished))
              << " after " << outcome.steps << " steps\n";
    return 0;
  } catch (const UserError& e) {
    send(protocol::Error{deepladder::boundedText(e.what(), 4000)});
    std::cerr << "deepladder-worker: " << e.what() << "\n";
    return deepladder::kExitBadInput;
  } catch (const deepladder::DiskFullError& e) {
    // Not the run's fault: it is marked interrupted and `deepladder resume` continues it.
    send(protocol::Error{"disk full: " + deepladder::boundedText(e.what(), 4000)});
    std::cerr << "deepladder-worker: " << e.what() << "\n";
    return deepladder::kExitDiskFull;
  } catch (const deepladder::trainers::distributed::PeerLostError& e) {
    // Another rank died or hung: stop now, no Done; the scheduler resumes the run. Only rank 0
    // speaks the protocol (under srun every rank shares one stdout).
    if (deepladder::trainers::distributed::rendezvousFromEnvironment().rank == 0)
      send(protocol::Error{std::string("a peer rank was lost: ") + e.what()});
    std::cerr << "deepladder-worker: " << e.what() << "\n";
    std::_Exit(deepladder::trainers::distributed::kExitPeerLost);
  } catch (const std::exception& e) {
    send(protocol::Error{"worker failed: " + deepladder::boundedText(e.what(), 4000)});
    std::cerr << "deepladder-worker: " << e.what() << "\n";
    return 1;
  }
}
