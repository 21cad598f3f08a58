// Warm standby workers (see standby_pool.h).
#include "core/scheduler/standby_pool.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "core/worker_assignment.h"

namespace deepladder::scheduler {

std::map<std::string, std::string> StandbyPool::standbyEnvironment(const Slot& slot) {
  std::map<std::string, std::string> env = workerEnvironment(slot.shares_cores);
  for (const auto& [name, value] : slot.env) env[name] = value;
  return env;
}

void StandbyPool::prepare(const std::vector<Slot>& slots, const std::string& worker_path) {
  if (worker_path == unsupported_) return;
  for (const Slot& slot : slots) {
    auto it = standbys_.find(slot.name);
    if (it != standbys_.end()) {
      const State state = check(it->second, 0);
      if (state == State::kFailed) {
        giveUp(worker_path);
        return;
      }
      if ((state == State::kLoading || state == State::kReady) &&
          it->second.worker_path == worker_path)
        continue;
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

void StandbyPool::giveUp(const std::string& worker_path) {
  standbys_.clear();
  unsupported_ = worker_path;
  std::fprintf(stderr,
               "deepladder: %s --standby did not report ready; runs launch cold from now on\n",
               worker_path.c_str());
}

StandbyPool::State StandbyPool::check(Standby& standby, int wait_ms) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    const int left = std::max(
        0, static_cast<int>(
               std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now())
                   .count()));
    bool foreign = false;  // a line other than the ready line: not a standby (or broken)
    const bool open = standby.process->poll(standby.ready ? 0 : left, [&](const std::string& line) {
      if (!standby.ready && line == kStandbyReadyLine)
        standby.ready = true;
      else
        foreign = true;
    });
    if (foreign) return State::kFailed;
    if (!open) return standby.ready || killedBeforeReady(standby) ? State::kGone : State::kFailed;
    if (standby.ready) return State::kReady;
    if (left <= 0) return State::kLoading;
  }
}

bool StandbyPool::killedBeforeReady(Standby& standby) {
  // Its stdout ended: it exits now. A signal (the OOM killer, a user) is no fault of the program.
  ProcessExit exit;
  for (int i = 0; i < 20; ++i) {
    if (standby.process->finished(&exit)) return !exit.exited;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
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
  const State state = check(standby, static_cast<int>(1000 * ready_wait_s));
  if (state == State::kFailed) giveUp(worker_path);
  if (state != State::kReady) return nullptr;
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
