// What the scheduler needs from wherever runs are kept, as an interface: the SQLite store
// implements it (storage/), tests implement it in memory. Keeps core free of SQLite.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/protocol.h"
#include "core/run_status.h"

namespace deepladder::scheduler {

struct PendingRun {
  int64_t id = 0;
  std::string name;
  std::string workdir;  // holds config.json; checkpoints and logs go here
  double flops = 0;     // planned training FLOPs: biggest runs start first
  int64_t attempt = 0;  // attempts so far; > 0 means resume from the last checkpoint
  int64_t total_steps = 0;
  int64_t ranks = 1;          // data-parallel worker processes that make up the run
  int64_t gpus_per_rank = 0;  // 0: the backend's default (one GPU slot; slurm.gpus_per_task)
  // Non-empty: the worker evaluates the run's newest checkpoint at these core passes
  // ("1..16", `deepladder eval`) instead of training it.
  std::string eval_passes;
};

// Receives one run's worker output (protocol lines) and remembers how it ended.
class RunSink {
 public:
  virtual ~RunSink() = default;
  // Decodes the line (once: the scheduler hands the result on to its listeners) and applies it;
  // nullopt for a line that is not a protocol message.
  virtual std::optional<protocol::Message> line(const std::string& line) = 0;
  virtual void flush() = 0;
  virtual std::optional<RunStatus> doneStatus() const = 0;  // finished or diverged
  virtual std::string doneMessage() const = 0;
  virtual std::string lastError() const = 0;  // last protocol error message, if any
  virtual int64_t lastStep() const = 0;
};

class RunStore {
 public:
  virtual ~RunStore() = default;
  // Runs waiting to start (queued, or interrupted and resumable), biggest planned FLOPs first.
  virtual std::vector<PendingRun> pending() = 0;
  // The run is starting on `where` (slot name, device or job id) as attempt `attempt`.
  virtual void markLaunched(int64_t id, const std::string& where, int64_t attempt) = 0;
  virtual std::unique_ptr<RunSink> sink(int64_t id) = 0;
  // Final or intermediate status: finished, diverged, failed, interrupted, queued (retry).
  virtual void settle(int64_t id, RunStatus status, const std::string& message) = 0;
  // True when someone cancelled the run (e.g. `deepladder cancel` from another process) or sweep
  // halving stopped it (its status is then stopped already).
  virtual bool cancelRequested(int64_t id) = 0;
  // How a run ended by cancelRequested() is settled: cancelled by the user, or, for a run sweep
  // halving stopped, stopped with the decision's reason (storage keeps both).
  virtual std::pair<RunStatus, std::string> cancelledOutcome(int64_t /*id*/) {
    return {RunStatus::kCancelled, "cancelled by the user"};
  }
};

}  // namespace deepladder::scheduler
