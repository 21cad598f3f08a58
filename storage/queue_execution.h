// The scheduler wired to a queue in the database, in one place for every caller: `deepladder
// run` and `resume` (a ladder's runs), `train` (a queue of one run), `eval` (an evaluation of one
// finished run) and the workbench's in-process scheduler. The backend and the scheduler options
// come from the resources the ladder was queued with.
#pragma once

#include <memory>
#include <string>

#include "core/ladder/ladder_spec.h"
#include "core/scheduler/backend.h"
#include "core/scheduler/scheduler.h"
#include "storage/database.h"

namespace deepladder::storage {

class QueueExecution {
 public:
  QueueExecution(std::unique_ptr<scheduler::RunStore> store, const ladder::Resources& resources,
                 const std::string& worker_path);

  scheduler::RunStore& store() { return *store_; }
  scheduler::Backend& backend() { return *backend_; }
  scheduler::Scheduler& scheduler() { return *scheduler_; }

 private:
  std::unique_ptr<scheduler::RunStore> store_;
  std::unique_ptr<scheduler::Backend> backend_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
};

// The resources a stored ladder was queued with (defaults for a run outside any ladder). Throws
// UserError when the stored resources cannot be read: never a silent fall back to local defaults.
ladder::Resources storedResources(Database& db, std::optional<int64_t> ladder_id);

// What a scheduler event says about a run's progress, for progress displays: the step, the
// latest losses and throughput of a metric line. nullopt for other events.
struct RunProgressUpdate {
  int64_t step = 0, tokens = 0;
  double flops = 0, wall_s = 0;
  std::optional<double> train_loss, val_loss, tokens_per_s;
};
std::optional<RunProgressUpdate> progressUpdate(const scheduler::SchedulerEvent& event);

}  // namespace deepladder::storage
