// The scheduler set up for one ladder's resources: the backend they ask for (local slots on this
// machine's cores and GPUs, or Slurm) and the scheduler options (retries, heartbeat). Shared by
// `deepladder run`/`resume` and the desktop workbench, which owns a scheduler in-process.
#pragma once

#include <memory>
#include <string>

#include "core/ladder/ladder_spec.h"
#include "core/scheduler/backend.h"
#include "core/scheduler/scheduler.h"

namespace deepladder::scheduler {

// LocalBackend over this machine's cores and detected GPUs, or SlurmBackend; UserError for a
// backend this build lacks.
std::unique_ptr<Backend> makeBackend(const ladder::Resources& resources);

// Retries and heartbeat timeout from the resources, the worker program at `worker_path`.
SchedulerOptions schedulerOptionsFor(const ladder::Resources& resources,
                                     const std::string& worker_path);

}  // namespace deepladder::scheduler
