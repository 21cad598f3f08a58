// A ladder's live projection (see live_ladder.h).
#include "app/live_ladder.h"

#include <algorithm>
#include <chrono>

#include "storage/result_points.h"

namespace deepladder::app {

LiveLadder::LiveLadder(storage::Database& db, int64_t ladder_id, const std::string& name,
                       const fitting::FrontierOptions& options, double target)
    : db_(db),
      ladder_id_(ladder_id),
      label_(db.path() + " (ladder " + name + ")"),
      cache_(db, ladder_id),
      projection_(&cache_, name, options, target) {}

fitting::ProjectionSnapshot LiveLadder::onRunFinished() {
  const auto t0 = std::chrono::steady_clock::now();
  const ResultsTable table = storage::ladderResults(db_, ladder_id_, label_);
  fitting::ProjectionSnapshot snapshot = projection_.refresh(table);
  runs_seen_ = static_cast<int>(table.points.size());
  last_refresh_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return snapshot;
}

double defaultTarget(const fitting::FrontierOptions& options) {
  return options.at.empty() ? 1e26 : *std::max_element(options.at.begin(), options.at.end());
}

}  // namespace deepladder::app
