// The scheduler over a database queue (see queue_execution.h).
#include "storage/queue_execution.h"

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/ladder/resources_json.h"
#include "core/metric_keys.h"
#include "core/safe_text.h"
#include "core/scheduler/backend_factory.h"

namespace deepladder::storage {

QueueExecution::QueueExecution(std::unique_ptr<scheduler::RunStore> store,
                               const ladder::Resources& resources, const std::string& worker_path)
    : store_(std::move(store)),
      backend_(scheduler::makeBackend(resources)),
      scheduler_(std::make_unique<scheduler::Scheduler>(
          *store_, *backend_, scheduler::schedulerOptionsFor(resources, worker_path))) {}

ladder::Resources storedResources(Database& db, std::optional<int64_t> ladder_id) {
  if (!ladder_id) return ladder::Resources{};
  const std::optional<LadderRecord> stored = db.ladder(*ladder_id);
  if (!stored) return ladder::Resources{};
  try {
    return ladder::resourcesFromJson(nlohmann::json::parse(stored->resources_json));
  } catch (const std::exception& e) {
    // Defaults here would run a damaged Slurm ladder's runs on this machine.
    throw UserError("ladder " + std::to_string(stored->id) + " (\"" + stored->name +
                    "\"): the resources it was queued with cannot be read from the database (" +
                    boundedText(e.what(), 300) +
                    "); nothing was started. Run it again from its ladder file with `deepladder "
                    "run LADDER.toml` (finished runs are kept)");
  }
}

std::optional<RunProgressUpdate> progressUpdate(const scheduler::SchedulerEvent& event) {
  if (event.kind != scheduler::SchedulerEvent::kLine || !event.message) return std::nullopt;
  const auto* metric = std::get_if<protocol::Metric>(&*event.message);
  if (!metric) return std::nullopt;
  RunProgressUpdate update;
  update.step = metric->step;
  update.tokens = metric->tokens;
  update.flops = metric->flops;
  update.wall_s = metric->wall_s;
  for (const auto& [key, value] : metric->values) {
    if (key == metric_keys::kTrainLoss) update.train_loss = value;
    if (key == metric_keys::kValLoss) update.val_loss = value;
    if (key == metric_keys::kTokensPerSecond) update.tokens_per_s = value;
  }
  return update;
}

}  // namespace deepladder::storage
