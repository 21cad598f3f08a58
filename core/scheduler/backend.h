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

// What every backend adds to a worker's environment: OMP_WAIT_POLICY=PASSIVE unless this
// process's environment sets the variable (then the worker inherits the user's choice). libgomp
// reads it when it loads, so the launcher sets it: workers side by side must not spin on the
// cores the others compute on.
std::map<std::string, std::string> workerEnvironment();

}  // namespace deepladder::scheduler
