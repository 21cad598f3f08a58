// The memory of the device a local slot gives a run, when this machine can tell (for the memory
// plan, core/ladder/memory_plan.h, when the ladder does not set resources.device_memory_gb):
// GPU slots get the smallest of the chosen GPUs' memory (nvidia-smi), CPU slots share the
// machine's memory (MemTotal of /proc/meminfo divided by the slots). Slurm slots are unknown:
// such ladders say it with resources.device_memory_gb.
#pragma once

#include "core/ladder/ladder_spec.h"
#include "core/ladder/memory_plan.h"

namespace deepladder::scheduler {

// Unknown (bytes 0) for Slurm or when nothing can be read. $DEEPLADDER_FAKE_GPU_MEMORY_MB (with
// $DEEPLADDER_FAKE_GPUS) stands in for nvidia-smi in tests.
ladder::DeviceBudget localDeviceMemory(const ladder::Resources& resources);

// The ladder's own size when it gives one, else localDeviceMemory.
ladder::DeviceBudget deviceBudgetFor(const ladder::Resources& resources);

// For `plan`, `run` and the workbench: when the ladder gives no device_memory_gb (its runs were
// estimated but not checked when it was read), checks and fits every run against this machine's
// slots (ladder::planMemory); UserError when a run cannot fit.
void planForLocalDevices(ladder::LadderSpec& spec);

}  // namespace deepladder::scheduler
