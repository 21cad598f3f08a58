// Warm standby workers for the local backend: one pre-started `deepladder-worker --standby` per
// slot (started with the slot's environment: CUDA_VISIBLE_DEVICES and the launch defaults), which
// has loaded LibTorch, started no thread, printed its ready line and waits for a run assignment
// on stdin (core/worker_assignment.h). Loading LibTorch is most of a worker's start-up, so a run
// dispatched to a slot with a standby says hello in a fraction of a cold launch's time.
// Standbys are started by the thread that runs the scheduler (they die with it: SIGKILL on the
// parent's death, like any worker, and EOF on stdin), are never runs, and a standby found dead
// is dropped (the run is launched cold; the next prepare() starts a fresh one). A worker program
// that exits or speaks before it is ready (an older or a fake worker) gets no more standbys.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/scheduler/backend.h"
#include "core/worker_process.h"

namespace deepladder::scheduler {

class StandbyPool {
 public:
  // Starts a standby for every slot that has none (or whose standby died).
  void prepare(const std::vector<Slot>& slots, const std::string& worker_path);

  // The standby of `slot`, ready and alive and started with `env` (the run's whole launch
  // environment) by `worker_path`, taken out of the pool; nullptr when there is none. Waits up
  // to `ready_wait_s` for a standby that is still loading.
  std::unique_ptr<WorkerProcess> take(const std::string& slot, const std::string& worker_path,
                                      const std::map<std::string, std::string>& env,
                                      double ready_wait_s = 10);

  void clear();  // kills every standby
  std::vector<pid_t> pids() const;

  // The environment a standby of `slot` is started with.
  static std::map<std::string, std::string> standbyEnvironment(const Slot& slot);

 private:
  struct Standby {
    std::unique_ptr<WorkerProcess> process;
    std::string worker_path;
    std::map<std::string, std::string> env;
    bool ready = false;
  };
  enum class State {
    kLoading,  // no word yet
    kReady,    // said it is ready, still there
    kGone,     // killed (or ended after it was ready): start another
    kFailed,   // exited or said something else before it was ready: the program is no standby
  };
  // True when the standby, whose stdout ended before it was ready, was killed by a signal.
  static bool killedBeforeReady(Standby& standby);
  // What the standby said within `wait_ms` (0: what it said so far).
  static State check(Standby& standby, int wait_ms);
  // Stops making standbys of `worker_path` (one line on stderr says so).
  void giveUp(const std::string& worker_path);
  std::map<std::string, Standby> standbys_;  // by slot name
  std::string unsupported_;                  // a worker program that is no standby
};

}  // namespace deepladder::scheduler
