// Local backend: child worker processes (see local_backend.h).
#include "core/scheduler/local_backend.h"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

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

class LocalExecution : public Execution {
 public:
  LocalExecution(const ProcessSpec& spec, std::string where)
      : process_(spec), where_(std::move(where)) {}

  bool pollOutput(const std::function<void(const std::string&)>& on_line) override {
    if (output_closed_) return false;
    output_closed_ = !process_.poll(0, on_line);
    return !output_closed_;
  }

  std::optional<ExecutionEnd> finished() override {
    if (!output_closed_) return std::nullopt;
    ExecutionEnd end;
    end.killed_by_us = killed_by_us_;
    end.exit = process_.wait();
    return end;
  }

  void terminate() override {
    killed_by_us_ = true;
    process_.terminate(SIGTERM);
  }
  void kill() override {
    killed_by_us_ = true;
    process_.terminate(SIGKILL);
  }
  std::string where() const override { return where_; }
  int pollFd() const override { return process_.outputFd(); }

 private:
  WorkerProcess process_;
  std::string where_;
  bool output_closed_ = false;
  bool killed_by_us_ = false;
};

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
  if (resources.devices == "auto") chosen = gpus;
  else if (resources.devices != "cpu") chosen = parseIndexList(resources.devices);
  if (!chosen.empty()) {
    const int64_t threads = std::max<int64_t>(1, cores / static_cast<int64_t>(chosen.size()));
    for (int gpu : chosen) {
      Slot slot;
      slot.name = "gpu" + std::to_string(gpu);
      slot.env["CUDA_VISIBLE_DEVICES"] = std::to_string(gpu);
      slot.threads = resources.threads_per_slot > 0 ? resources.threads_per_slot : threads;
      slots.push_back(slot);
    }
    return slots;
  }
  const int64_t count = resources.slots > 0 ? resources.slots : std::max<int64_t>(1, cores / 2);
  const int64_t threads = resources.threads_per_slot > 0
                              ? resources.threads_per_slot
                              : std::max<int64_t>(1, cores / count);
  for (int64_t i = 0; i < count; ++i) {
    Slot slot;
    slot.name = "cpu" + std::to_string(i);
    slot.env["CUDA_VISIBLE_DEVICES"] = "";
    slot.threads = threads;
    slots.push_back(slot);
  }
  return slots;
}

std::vector<std::string> workerArguments(const std::string& worker_path, const PendingRun& run,
                                         const Slot& slot) {
  std::vector<std::string> argv = {worker_path, "--config", run.workdir + "/config.json",
                                   "--workdir", run.workdir, "--run-id", std::to_string(run.id)};
  if (slot.threads > 0) {
    argv.push_back("--threads");
    argv.push_back(std::to_string(slot.threads));
  }
  if (run.attempt > 0) argv.push_back("--resume");
  return argv;
}

std::unique_ptr<Execution> LocalBackend::launch(const PendingRun& run, const Slot& slot,
                                                const std::string& worker_path) {
  ProcessSpec spec;
  spec.argv = workerArguments(worker_path, run, slot);
  spec.env = slot.env;
  spec.stderr_path = run.workdir + "/worker.log";
  spec.stdout_copy_path = run.workdir + "/worker.jsonl";
  return std::make_unique<LocalExecution>(spec, slot.name);
}

std::string LocalBackend::describe() const {
  std::string out = "local, " + std::to_string(slots_.size()) + " slot(s):";
  for (const auto& s : slots_) out += " " + s.name + "(" + std::to_string(s.threads) + " thr)";
  return out;
}

}  // namespace deepladder::scheduler
