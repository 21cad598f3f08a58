// The ladder scheduler: keeps every slot busy with the biggest pending run, reads each worker's
// protocol output into its sink, watches heartbeats, retries crashed runs from their last
// checkpoint up to a limit, and marks the rest failed with the reason. The ladder goes on.
// A run may need several slots (a data-parallel run of P ranks, Backend::slotsNeeded): runs
// start strictly biggest first, so a wide run waits for enough free slots instead of being
// overtaken forever; a run wider than the whole backend fails at once with the reason.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "core/run_status.h"
#include "core/scheduler/backend.h"
#include "core/scheduler/run_store.h"

namespace deepladder::scheduler {

struct SchedulerOptions {
  std::string worker_path;
  int64_t retries = 2;               // attempts after the first
  double heartbeat_timeout_s = 300;  // no output for this long: the worker is hung, kill it
  int poll_ms = 20;                  // longest wait between output checks
  // Warm standby workers (Backend::prepareStandbys): while runs wait, every slot keeps a worker
  // that has loaded LibTorch, so the next run on it starts without loading; dropped when nothing
  // waits and when run() ends. A standby loads while the slot's run still trains: that pays when
  // a core is spare (GPU slots, or CPU slots whose threads leave a core free), and only moves the
  // load into the previous run otherwise, hence kOnSpareCores.
  enum class Standby { kOff, kOnSpareCores, kAlways };
  Standby standby_workers = Standby::kOff;
};

// What the scheduler reports as it goes (for progress displays, the GUI and tests): typed, so
// no listener parses a worker's output again.
struct SchedulerEvent {
  enum Kind { kLaunched, kLine, kSettled } kind;
  int64_t run_id = 0;
  std::string run_name;
  std::string where;
  // The raw line (kLine), "attempt N" (kLaunched), the settled status's message (kSettled; empty
  // for a plain finish).
  std::string detail;
  double time_s = 0;                         // seconds since run() started
  std::optional<protocol::Message> message;  // kLine: the line as the run's sink decoded it
  // kSettled: the status the run was settled with; kQueued is a failed attempt that will be
  // retried from its last checkpoint.
  RunStatus status = RunStatus::kQueued;

  bool retry() const { return kind == kSettled && status == RunStatus::kQueued; }
  // kSettled as progress lines print it: "finished", "diverged: <why>", "retry: <why>", ...
  std::string settledText() const {
    const std::string word = retry() ? "retry" : toString(status);
    return detail.empty() ? word : word + ": " + detail;
  }
};

class Scheduler {
 public:
  Scheduler(RunStore& store, Backend& backend, SchedulerOptions options);
  ~Scheduler();

  void onEvent(std::function<void(const SchedulerEvent&)> callback) {
    on_event_ = std::move(callback);
  }

  // Runs until nothing is pending or active, or until stop() — then active runs are
  // interrupted (resumable). Returns the number of runs that ended finished or diverged.
  // A DiskFullError from the store (the database's disk is full) stops every active worker,
  // stores them interrupted where the database still takes that, and is thrown on with what to
  // do; a worker that finds its own disk full (core/disk_full.h) stops the queue the same way.
  int run();
  void stop() { stop_requested_ = true; }  // safe from a signal handler or another thread

 private:
  struct Active;
  void launchInto(const std::vector<size_t>& slot_indices, const PendingRun& run);
  void fillFreeSlots();
  void settle(Active& active);
  int runLoop();
  // Terminates every active worker (each checkpoints on SIGTERM), waits for it, and stores it
  // interrupted with `reason` when the store still takes a write.
  void interruptAll(const std::string& reason);
  void emit(SchedulerEvent::Kind kind, const Active& active, const std::string& detail,
            std::optional<protocol::Message> message = std::nullopt);
  void emitSettled(const Active& active, RunStatus status, const std::string& message);
  double now() const;

  RunStore& store_;
  Backend& backend_;
  SchedulerOptions options_;
  std::function<void(const SchedulerEvent&)> on_event_;
  std::atomic<bool> stop_requested_{false};
  std::vector<std::unique_ptr<Active>> active_;  // runs in flight
  std::vector<Slot> slots_;
  double start_ = 0;
  int completed_ = 0;
};

}  // namespace deepladder::scheduler
