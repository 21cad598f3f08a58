// A run on this machine as one Execution: its worker process, or for a data-parallel run its P
// worker processes started together.
// Rank 0's stdout is the run's protocol (the others speak none); the ranks of a data-parallel run
// get the rendezvous variables c10d reads (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE) and the peer timeout. When one rank ends badly (crash, kill, error exit) the
// others cannot go on without it: they are terminated at once, and the run ends with the first
// failing rank's exit, so the scheduler retries it from the last checkpoint like any crash.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/scheduler/backend.h"

namespace deepladder::scheduler {

// The variables rank `rank` of `world` needs to find the others through rank 0's TCPStore.
std::map<std::string, std::string> rendezvousEnvironment(int64_t rank, int64_t world,
                                                         int master_port, double peer_timeout_s);

// Launches every spec at once (specs[0] is rank 0; a single spec is a plain run). Throws
// std::runtime_error when a process cannot be started (the ones already started are killed).
std::unique_ptr<Execution> launchRankGroup(const std::vector<ProcessSpec>& specs,
                                           std::string where);

// A plain run whose worker process is already running (a standby that took the run).
std::unique_ptr<Execution> adoptWorker(std::unique_ptr<WorkerProcess> process, std::string where);

}  // namespace deepladder::scheduler
