// The local backend: worker processes on this machine. Slots are the GPUs found at start (one
// run per GPU, pinned with CUDA_VISIBLE_DEVICES) or N CPU slots that divide the cores. A
// data-parallel run (train.ranks = P) takes P free slots (P x gpus_per_rank GPUs) and runs as a
// rank group (rank_group.h): P processes, one run (a plain run is a group of one). A plain run
// on a slot that holds a warm standby (standby_pool.h, prepareStandbys) is handed to it instead
// of a fresh process; without one (none prepared, it died, or the run needs another environment
// at load time) the run launches cold.
#pragma once

#include "core/ladder/ladder_spec.h"
#include "core/scheduler/backend.h"
#include "core/scheduler/standby_pool.h"
#include "core/worker_process.h"

namespace deepladder::scheduler {

// GPU indices visible here: $DEEPLADDER_FAKE_GPUS ("0,1", for tests) or `nvidia-smi -L`.
std::vector<int> detectGpus();

// Slots for `resources` on a machine with `cores` cores and these GPUs.
std::vector<Slot> localSlots(const ladder::Resources& resources, int64_t cores,
                             const std::vector<int>& gpus);

class LocalBackend : public Backend {
 public:
  // peer_timeout_s: how long the ranks of a data-parallel run wait for a silent peer.
  explicit LocalBackend(std::vector<Slot> slots, double peer_timeout_s = 300)
      : slots_(std::move(slots)), peer_timeout_s_(peer_timeout_s) {}
  std::vector<Slot> slots() override { return slots_; }
  int64_t slotsNeeded(const PendingRun& run) const override;
  std::unique_ptr<Execution> launch(const PendingRun& run, const std::vector<Slot>& slots,
                                    const std::string& worker_path) override;
  std::string describe() const override;
  void prepareStandbys(const std::vector<Slot>& slots, const std::string& worker_path) override {
    standbys_.prepare(slots, worker_path);
  }
  void dropStandbys() override { standbys_.clear(); }
  bool coresToSpare() const override;
  std::vector<pid_t> standbyPids() const { return standbys_.pids(); }
  int64_t standbyLaunches() const { return standby_launches_; }  // runs a standby took so far

 private:
  bool gpuSlots() const;
  // Hands a single-slot run to the slot's warm standby; nullptr when none can take it (the run
  // then launches cold).
  std::unique_ptr<Execution> launchOnStandby(const ProcessSpec& spec, const Slot& slot,
                                             const std::string& worker_path,
                                             const std::string& where);
  std::vector<Slot> slots_;
  double peer_timeout_s_;
  StandbyPool standbys_;
  int64_t standby_launches_ = 0;
};

}  // namespace deepladder::scheduler
