// Backend and scheduler options from a ladder's resources (see backend_factory.h).
#include "core/scheduler/backend_factory.h"

#include <algorithm>
#include <thread>

#include "core/scheduler/local_backend.h"
#include "core/scheduler/slurm_backend.h"

namespace deepladder::scheduler {

std::unique_ptr<Backend> makeBackend(const ladder::Resources& resources) {
  if (resources.backend == "slurm") return std::make_unique<SlurmBackend>(resources);
  const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  return std::make_unique<LocalBackend>(localSlots(resources, cores, detectGpus()),
                                        resources.peer_timeout_s);
}

SchedulerOptions schedulerOptionsFor(const ladder::Resources& resources,
                                     const std::string& worker_path) {
  SchedulerOptions options;
  options.worker_path = worker_path;
  options.retries = resources.retries;
  options.heartbeat_timeout_s = resources.heartbeat_timeout_s;
  options.standby_workers = SchedulerOptions::Standby::kOnSpareCores;
  return options;
}

}  // namespace deepladder::scheduler
