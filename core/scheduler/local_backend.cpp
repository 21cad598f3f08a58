// Local backend: child worker processes (see local_backend.h).
#include "core/scheduler/local_backend.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/free_port.h"
#include "core/run_dir_lock.h"
#include "core/safe_file.h"
#include "core/scheduler/rank_group.h"
#include "core/worker_assignment.h"

namespace deepladder::scheduler {

namespace {

std::vector<int> parseIndexList(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(std::stoi(item));
  return out;
}

}  // namespace

std::vector<int> detectGpus() {
  if (const char* fake = std::getenv("DEEPLADDER_FAKE_GPUS")) return parseIndexList(fake);
  std::vector<int> gpus;
  std::FILE* pipe = popen("nvidia-smi -L 2>/dev/null", "r");
  if (!pipe) return gpus;
  char line[512];
  int index = 0;
  while (std::fgets(line, sizeof line, pipe))
    if (std::string(line).rfind("GPU ", 0) == 0) gpus.push_back(index++);
  pclose(pipe);
  return gpus;
}

std::vector<Slot> localSlots(const ladder::Resources& resources, int64_t cores,
                             const std::vector<int>& gpus) {
  std::vector<Slot> slots;
  std::vector<int> chosen;
  if (resources.devices == "auto")
    chosen = gpus;
  else if (resources.devices != "cpu")
    chosen = parseIndexList(resources.devices);
  if (!chosen.empty()) {
    const int64_t threads = std::max<int64_t>(1, cores / static_cast<int64_t>(chosen.size()));
    for (int gpu : chosen) {
      Slot slot;
      slot.name = "gpu" + std::to_string(gpu);
      slot.env["CUDA_VISIBLE_DEVICES"] = std::to_string(gpu);
      slot.threads = resources.threads_per_slot > 0 ? resources.threads_per_slot : threads;
      slot.shares_cores = chosen.size() > 1;  // each GPU's worker also computes on the CPU
      slots.push_back(slot);
    }
    return slots;
  }
  const int64_t count = resources.slots > 0 ? resources.slots : std::max<int64_t>(1, cores / 2);
  const int64_t threads = resources.threads_per_slot > 0 ? resources.threads_per_slot
                                                         : std::max<int64_t>(1, cores / count);
  for (int64_t i = 0; i < count; ++i) {
    Slot slot;
    slot.name = "cpu" + std::to_string(i);
    slot.env["CUDA_VISIBLE_DEVICES"] = "";
    slot.threads = threads;
    slot.shares_cores = count > 1;
    slots.push_back(slot);
  }
  return slots;
}

std::pair<std::string, std::string> peerTimeoutVariable(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return {"DEEPLADDER_DIST_TIMEOUT_S", text};
}

std::vector<std::string> workerArguments(const std::string& worker_path, const PendingRun& run,
                                         int64_t threads) {
  std::vector<std::string> argv = {worker_path,           "--config",  run.workdir + "/config.json",
                                   "--workdir",           run.workdir, "--run-id",
                                   std::to_string(run.id)};
  if (threads > 0) {
    argv.push_back("--threads");
    argv.push_back(std::to_string(threads));
  }
  if (!run.eval_passes.empty()) {
    argv.push_back("--eval-passes");
    argv.push_back(run.eval_passes);
  } else if (run.attempt > 0) {
    argv.push_back("--resume");
  }
  return argv;
}

std::map<std::string, std::string> workerEnvironment(bool shares_cores) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr)
    return {};
  if (shares_cores) return {{"OMP_WAIT_POLICY", "PASSIVE"}};
  return {{"GOMP_SPINCOUNT", "300000"}};
}

bool LocalBackend::gpuSlots() const {
  if (slots_.empty()) return false;
  const auto it = slots_[0].env.find("CUDA_VISIBLE_DEVICES");
  return it != slots_[0].env.end() && !it->second.empty();
}

int64_t LocalBackend::slotsNeeded(const PendingRun& run) const {
  const int64_t per_rank = gpuSlots() ? std::max<int64_t>(1, run.gpus_per_rank) : 1;
  return std::max<int64_t>(1, run.ranks) * per_rank;
}

std::unique_ptr<Execution> LocalBackend::launch(const PendingRun& run,
                                                const std::vector<Slot>& slots,
                                                const std::string& worker_path) {
  // Checkpoints and logs go into the run's own directory, never through a link put in its place.
  requireRealDirectory(run.workdir, "the run directory");
  // This scheduler holds the database, and the run is not in flight: a worker still holding the
  // run's directory is left over from a scheduler that died. Stop it; never run two.
  if (!stopLockHolder(run.workdir, kWorkerLockName, /*grace_s=*/10, /*wait_s=*/30))
    throw std::runtime_error("a leftover worker still holds " + run.workdir + "/" +
                             kWorkerLockName + " and does not stop; stop it by hand");
  const int64_t ranks = std::max<int64_t>(1, run.ranks);
  const size_t per_rank = slots.size() / static_cast<size_t>(ranks);
  if (per_rank == 0 || per_rank * static_cast<size_t>(ranks) != slots.size())
    throw std::logic_error("local backend: " + std::to_string(slots.size()) +
                           " slot(s) for a run of " + std::to_string(ranks) + " rank(s)");
  std::vector<ProcessSpec> specs;
  std::string where;
  const int port = ranks > 1 ? pickFreeLocalPort() : 0;
  for (int64_t rank = 0; rank < ranks; ++rank) {
    // Rank r holds slots [r * per_rank, (r + 1) * per_rank): its own GPUs, or its CPU share.
    ProcessSpec spec;
    // A rank group is several slots: its ranks share the cores.
    spec.env =
        workerEnvironment(ranks > 1 || slots[static_cast<size_t>(rank) * per_rank].shares_cores);
    int64_t threads = 0;
    std::string devices;
    for (size_t k = 0; k < per_rank; ++k) {
      const Slot& slot = slots[static_cast<size_t>(rank) * per_rank + k];
      for (const auto& [name, value] : slot.env) spec.env[name] = value;
      if (auto it = slot.env.find("CUDA_VISIBLE_DEVICES");
          it != slot.env.end() && !it->second.empty())
        devices += (devices.empty() ? "" : ",") + it->second;
      threads += slot.threads;
      where += (where.empty() ? "" : "+") + slot.name;
    }
    if (!devices.empty()) spec.env["CUDA_VISIBLE_DEVICES"] = devices;
    spec.argv = workerArguments(worker_path, run, threads);
    // An evaluation keeps its own logs beside the training run's.
    const std::string base = run.eval_passes.empty() ? "/worker" : "/eval";
    const std::string suffix = rank == 0 ? "" : ".rank" + std::to_string(rank);
    spec.stderr_path = run.workdir + base + suffix + ".log";
    if (rank == 0) spec.stdout_copy_path = run.workdir + base + ".jsonl";
    if (ranks > 1)
      for (auto& [name, value] : rendezvousEnvironment(rank, ranks, port, peer_timeout_s_))
        spec.env[name] = value;
    specs.push_back(std::move(spec));
  }
  if (specs.size() == 1 && slots.size() == 1)
    if (auto execution = launchOnStandby(specs[0], slots[0], worker_path, where)) return execution;
  return launchRankGroup(specs, where);
}

std::unique_ptr<Execution> LocalBackend::launchOnStandby(const ProcessSpec& spec, const Slot& slot,
                                                         const std::string& worker_path,
                                                         const std::string& where) {
  auto standby = standbys_.take(slot.name, worker_path, spec.env);
  if (!standby) return nullptr;
  WorkerAssignment assignment;
  assignment.args.assign(spec.argv.begin() + 1, spec.argv.end());
  // The standby loaded with its slot's environment; the assignment carries only the rest.
  const auto loaded_with = StandbyPool::standbyEnvironment(slot);
  for (const auto& [name, value] : spec.env)
    if (!loaded_with.count(name)) assignment.env[name] = value;
  assignment.stderr_path = spec.stderr_path;
  if (!spec.stdout_copy_path.empty()) standby->copyStdoutTo(spec.stdout_copy_path);
  if (!standby->writeInput(encodeAssignment(assignment) + "\n")) return nullptr;
  ++standby_launches_;
  return adoptWorker(std::move(standby), where);
}

bool LocalBackend::coresToSpare() const {
  if (gpuSlots()) return true;  // the runs compute on the GPUs
  int64_t threads = 0;
  for (const Slot& slot : slots_) threads += std::max<int64_t>(1, slot.threads);
  return threads < static_cast<int64_t>(std::thread::hardware_concurrency());
}

std::string LocalBackend::describe() const {
  std::string out = "local, " + std::to_string(slots_.size()) + " slot(s):";
  for (const auto& s : slots_) out += " " + s.name + "(" + std::to_string(s.threads) + " thr)";
  return out;
}

}  // namespace deepladder::scheduler
