// Backfill of the v2 plan columns (see plan_backfill.h).
#include "storage/plan_backfill.h"

#include <sqlite3.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/ladder/ladder_spec.h"
#include "core/ladder/resources_json.h"
#include "storage/plan_columns.h"
#include "storage/statement.h"

namespace deepladder::storage {

void backfillPlans(sqlite3* db) {
  // Ladders: task and resources from the spec; the planned runs by name.
  std::map<int64_t, std::map<std::string, ladder::RunPlan>> planned;
  {
    Statement select(db, "SELECT id, spec FROM ladders");
    Statement update(db, "UPDATE ladders SET task = ?2, resources = ?3 WHERE id = ?1");
    while (select.step()) {
      const int64_t id = select.columnInt(0);
      try {
        const ladder::LadderSpec spec = ladder::parseLadder(select.columnText(1), "stored ladder");
        for (const ladder::PlannedRun& run : spec.runs) planned[id][run.name] = run;
        update.bind(1, id);
        update.bindText(2, spec.task);
        update.bindText(3, ladder::resourcesToJson(spec.resources).dump());
        update.run();
      } catch (const std::exception&) {
        // A spec this version cannot read keeps the defaults (local CPU resources).
      }
    }
  }
  // Runs: the ladder's plan when it has one for the run, else the plan of its config alone.
  Statement select(db, "SELECT id, ladder_id, name, config FROM runs");
  Statement update(db, "UPDATE runs SET " + planAssignmentsFrom(2) + " WHERE id = ?1");
  while (select.step()) {
    const int64_t id = select.columnInt(0);
    const std::optional<int64_t> ladder = select.columnOptionalInt(1);
    ladder::RunPlan plan;
    try {
      plan =
          ladder::planRunConfig(runConfigFromJson(nlohmann::json::parse(select.columnText(3))), 0);
    } catch (const std::exception&) {
      continue;  // an unreadable config keeps the column defaults
    }
    if (ladder) {
      auto it = planned.find(*ladder);
      if (it != planned.end()) {
        auto run = it->second.find(select.columnText(2));
        if (run != it->second.end()) plan = run->second;
      }
    }
    update.bind(1, id);
    bindPlan(update, 2, plan);
    update.run();
  }
}

}  // namespace deepladder::storage
