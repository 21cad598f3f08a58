// Ladder resources to and from JSON (see resources_json.h).
#include "core/ladder/resources_json.h"

#include <nlohmann/json.hpp>

namespace deepladder::ladder {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SlurmOptions, partition, time_limit, cpus_per_task,
                                                gpus_per_task, workdir, extra)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Resources, backend, devices, slots,
                                                threads_per_slot, retries, heartbeat_timeout_s,
                                                peer_timeout_s, throughput_flops, slurm)

nlohmann::json resourcesToJson(const Resources& resources) {
  return resources;
}

Resources resourcesFromJson(const nlohmann::json& json) {
  if (!json.is_object()) return Resources{};
  return json.get<Resources>();
}

}  // namespace deepladder::ladder
