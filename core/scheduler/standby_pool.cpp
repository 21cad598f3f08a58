// Warm standby workers (see standby_pool.h).
#include "core/scheduler/standby_pool.h"

#include <algorithm>
#include <chrono>

#include "core/worker_assignment.h"

namespace deepladder::scheduler {

std::map<std::string, std::string> StandbyPool::standbyEnvironment(const Slot& slot) {
  std::map<std::string, std::string> env = workerEnvironment();
  for (const auto& [name, value] : slot.env) env[name] = value;
  return env;
}

void StandbyPool::prepare(const std::vector<Slot>& slots, const std::string& worker_path) {
  for (const Slot& slot : slots) {
    auto it = standbys_.find(slot.name);
    if (it != standbys_.end()) {
      ProcessExit ignored;
      const bool alive = it->second.process->outputFd() >= 0 &&
                         !it->second.process->finished(&ignored) &&
                         it->second.worker_path == worker_path;
      if (alive) continue;
      standbys_.erase(it);
    }
    Standby standby;
    standby.worker_path = worker_path;
    standby.env = standbyEnvironment(slot);
    ProcessSpec spec;
    spec.argv = {worker_path, "--standby"};
    spec.env = standby.env;
    spec.stdin_pipe = true;
    try {
      standby.process = std::make_unique<WorkerProcess>(spec);
    } catch (const std::exception&) {
      continue;  // no standby for this slot: its runs launch cold
    }
    standbys_.emplace(slot.name, std::move(standby));
  }
}

bool StandbyPool::awaitReady(Standby& standby, int wait_ms) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(wait_ms);
  bool other = false;
  while (!standby.ready && !other) {
    const int left = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
    const bool open = standby.process->poll(std::max(0, left), [&](const std::string& line) {
      if (line == kStandbyReadyLine)
        standby.ready = true;
      else
        other = true;
    });
    if (!open || left <= 0) break;
  }
  return standby.ready && !other;
}

std::unique_ptr<WorkerProcess> StandbyPool::take(const std::string& slot,
                                                 const std::string& worker_path,
                                                 const std::map<std::string, std::string>& env,
                                                 double ready_wait_s) {
  auto it = standbys_.find(slot);
  if (it == standbys_.end()) return nullptr;
  Standby standby = std::move(it->second);
  standbys_.erase(it);
  if (standby.worker_path != worker_path) return nullptr;
  // The run's environment must differ only in what the worker can still set itself.
  for (const auto& [name, value] : standby.env) {
    const auto wanted = env.find(name);
    if (wanted == env.end() || wanted->second != value) return nullptr;
  }
  for (const auto& [name, value] : env)
    if (!standby.env.count(name) && readAtLoadTime(name)) return nullptr;
  if (!standby.ready && !awaitReady(standby, static_cast<int>(1000 * ready_wait_s))) return nullptr;
  // Ready, but killed since? Its stdout then ends: look without waiting.
  bool unexpected = false;
  const bool open = standby.process->poll(0, [&](const std::string&) { unexpected = true; });
  if (!open || unexpected) return nullptr;
  ProcessExit ignored;
  if (standby.process->finished(&ignored)) return nullptr;
  return std::move(standby.process);
}

void StandbyPool::clear() {
  standbys_.clear();
}

std::vector<pid_t> StandbyPool::pids() const {
  std::vector<pid_t> out;
  for (const auto& [slot, standby] : standbys_) out.push_back(standby.process->pid());
  return out;
}

}  // namespace deepladder::scheduler
