// Test helper: takes a database opened at the current schema back to schema v1, as an old
// deepladder left it (data kept), so that migration tests can open it again and check each step.
#pragma once

#include <string>

#include "storage/database.h"

namespace deepladder::storage::testing {

// Undoes v4 (the metric pyramid), v3 (the fit cache columns, its trigger and indexes, the decisions
// table) and v2 (the stored plan's columns); user_version becomes 1. SQLite >= 3.35 drops columns.
inline void downgradeToSchemaV1(Database& db) {
  db.execute("DROP TABLE metric_pyramid");
  db.execute(
      "DROP TRIGGER fits_drop_when_a_run_finishes; DROP TABLE decisions;"
      "DROP INDEX fits_cache_key; DROP INDEX fits_ladder;");
  for (const char* column : {"cache_key", "ladder_id", "arms", "result"})
    db.execute(std::string("ALTER TABLE fits DROP COLUMN ") + column);
  for (const char* column :
       {"task", "plan_steps", "plan_tokens", "plan_flops", "plan_params", "plan_flops_per_token",
        "plan_depth", "plan_executed_depth", "plan_executed_depth_after_growth",
        "plan_crossover_step", "plan_ranks", "plan_gpus_per_rank", "plan_est_seconds"})
    db.execute(std::string("ALTER TABLE runs DROP COLUMN ") + column);
  db.execute("ALTER TABLE ladders DROP COLUMN task");
  db.execute("ALTER TABLE ladders DROP COLUMN resources");
  db.execute("PRAGMA user_version = 1");
}

}  // namespace deepladder::storage::testing
