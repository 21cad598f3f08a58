// Where workers run. A backend offers slots (a GPU, a share of the CPU cores, or a place in a
// Slurm queue) and turns a pending run into an Execution whose protocol output the scheduler
// reads. Local: a child process per run. Slurm: an sbatch job writing to a shared file.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/scheduler/run_store.h"
#include "core/worker_process.h"

namespace deepladder::scheduler {

struct Slot {
  std::string name;                        // "gpu1", "cpu0", "slurm3"
  std::map<std::string, std::string> env;  // e.g. CUDA_VISIBLE_DEVICES=1
  int64_t threads = 0;                     // --threads for the worker (0: leave the config's)
  bool shares_cores = true;  // other slots compute on this machine too (a lone local slot: false)
};

struct ExecutionEnd {
  bool killed_by_us = false;  // terminate() was called
  ProcessExit exit;           // how the process or job ended
};

class Execution {
 public:
  virtual ~Execution() = default;
  // Delivers complete output lines; returns false once no more output will come.
  virtual bool pollOutput(const std::function<void(const std::string&)>& on_line) = 0;
  // Set once the worker has ended and all its output has been delivered.
  virtual std::optional<ExecutionEnd> finished() = 0;
  virtual void terminate() = 0;  // ask it to stop (SIGTERM / scancel)
  virtual void kill() = 0;       // make it stop now (SIGKILL / scancel -s KILL)
  virtual std::string where() const = 0;
  virtual int pollFd() const { return -1; }  // for a local process: its stdout, to wait on
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::vector<Slot> slots() = 0;
  // How many of slots() one run occupies at once: 1 for a single-rank run; a data-parallel run
  // of P ranks takes P local slots (P x gpus_per_rank GPU slots) but one place in a Slurm queue.
  virtual int64_t slotsNeeded(const PendingRun& run) const {
    (void)run;
    return 1;
  }
  // Starts `run` on `slots` (slotsNeeded(run) of them, free).
  virtual std::unique_ptr<Execution> launch(const PendingRun& run, const std::vector<Slot>& slots,
                                            const std::string& worker_path) = 0;
  virtual std::string describe() const = 0;
  // Warm standby workers (local backend; others ignore it): keep a pre-started worker on each of
  // `slots` for the next run launched there, or stop them all.
  virtual void prepareStandbys(const std::vector<Slot>& slots, const std::string& worker_path) {
    (void)slots;
    (void)worker_path;
  }
  virtual void dropStandbys() {}
  // True when the runs on all slots leave a CPU core idle (a standby loads there).
  virtual bool coresToSpare() const { return false; }
};

// The variable that tells every rank of a data-parallel run how long to wait for a silent peer
// (DEEPLADDER_DIST_TIMEOUT_S, read by trainers/data_parallel), shared by every backend.
std::pair<std::string, std::string> peerTimeoutVariable(double seconds);

// The worker's command line for a run: the one place it is built (every backend, and so `run`,
// `resume`, `train` and `eval`). `threads` > 0 adds --threads; a retried run (attempt > 0)
// resumes; a run with eval_passes is evaluated instead of trained.
std::vector<std::string> workerArguments(const std::string& worker_path, const PendingRun& run,
                                         int64_t threads);

// What every backend adds to a worker's environment: how its OpenMP threads wait between parallel
// regions. libgomp reads this when it loads, so the launcher sets it. Nothing when this process's
// environment sets OMP_WAIT_POLICY or GOMP_SPINCOUNT (the worker inherits the user's choice).
// - Workers that share the machine's cores (`shares_cores`: several slots, or a Slurm node):
//   OMP_WAIT_POLICY=PASSIVE, so that a waiting thread never spins on a core another worker
//   computes on (a d64 model beside a one-thread trainer: 99k tok/s passive, 20-39k spinning).
// - A lone worker: GOMP_SPINCOUNT=300000, libgomp's own default, spelled out: a waiting thread
//   spins that long, then sleeps. The fused CPU kernels and LibTorch run hundreds of short
//   parallel regions a step, and waking sleeping threads for each costs more than the regions
//   (d64 on two idle cores: 185k tok/s against 73-77k passive).
std::map<std::string, std::string> workerEnvironment(bool shares_cores);

}  // namespace deepladder::scheduler
