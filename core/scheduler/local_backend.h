// The local backend: one worker process per slot on this machine. Slots are the GPUs found at
// start (one run per GPU, pinned with CUDA_VISIBLE_DEVICES) or N CPU slots that divide the cores.
#pragma once

#include "core/ladder/ladder_spec.h"
#include "core/scheduler/backend.h"

namespace deepladder::scheduler {

// GPU indices visible here: $DEEPLADDER_FAKE_GPUS ("0,1", for tests) or `nvidia-smi -L`.
std::vector<int> detectGpus();

// Slots for `resources` on a machine with `cores` cores and these GPUs.
std::vector<Slot> localSlots(const ladder::Resources& resources, int64_t cores,
                             const std::vector<int>& gpus);

class LocalBackend : public Backend {
 public:
  explicit LocalBackend(std::vector<Slot> slots) : slots_(std::move(slots)) {}
  std::vector<Slot> slots() override { return slots_; }
  std::unique_ptr<Execution> launch(const PendingRun& run, const Slot& slot,
                                    const std::string& worker_path) override;
  std::string describe() const override;

 private:
  std::vector<Slot> slots_;
};

}  // namespace deepladder::scheduler
