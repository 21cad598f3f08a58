// Depth-sweep points of a ladder (see depth_points.h).
#include "storage/depth_points.h"

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/flop_model.h"
#include "core/run_config.h"
#include "core/run_status.h"

namespace deepladder::storage {

std::vector<RunPoint> depthSweepPoints(Database& db, const std::string& db_label,
                                       const std::string& ladder) {
  const auto id = db.findLadder(ladder);
  if (!id)
    throw UserError("no ladder named \"" + ladder + "\" in " + db_label +
                    ". See `deepladder status --db " + db_label + "`");
  std::vector<RunPoint> points;
  for (const auto& summary : db.listRuns(*id)) {
    const RunRecord& r = summary.run;
    if (r.status != RunStatus::kFinished || !r.final_loss) continue;
    int64_t depth = r.plan.executed_depth_after_growth;
    if (depth <= 0)  // no stored plan: the config says it
      depth = executedBlocks(runConfigFromJson(nlohmann::json::parse(r.config_json)).model, true);
    RunPoint p;
    p.arm = r.arm;
    p.depth = static_cast<double>(depth);
    p.val_loss = *r.final_loss;
    points.push_back(std::move(p));
  }
  if (points.empty())
    throw UserError("ladder \"" + ladder + "\" in " + db_label +
                    " has no finished runs with a final loss yet. Run it first");
  return points;
}

}  // namespace deepladder::storage
