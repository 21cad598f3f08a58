// Replaying a worker's own protocol log (see worker_log_replay.h).
#include "storage/worker_log_replay.h"

#include <fstream>
#include <variant>

#include "core/protocol.h"
#include "storage/ingester.h"

namespace deepladder::storage {

int64_t replayWorkerLog(Database& db, int64_t run_id, const std::string& path) {
  std::ifstream in(path);
  if (!in) return 0;
  Ingester ingester(db, run_id, /*flush_rows=*/1 << 16, /*flush_seconds=*/1e9);
  int64_t applied = 0;
  for (std::string line; std::getline(in, line);) {
    const std::optional<protocol::Message> message = protocol::decode(line);
    if (!message) continue;  // a torn last line of a killed worker
    const bool data = std::holds_alternative<protocol::Metric>(*message) ||
                      std::holds_alternative<protocol::Eval>(*message) ||
                      std::holds_alternative<protocol::Lens>(*message) ||
                      std::holds_alternative<protocol::Checkpoint>(*message);
    if (!data) continue;
    ingester.apply(*message);
    ++applied;
  }
  ingester.flush();
  return applied;
}

}  // namespace deepladder::storage
