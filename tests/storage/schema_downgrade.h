// Test helper: takes a database opened at the current schema back to schema v1, as an old
// deepladder left it (data kept), so that migration tests can open it again and check each step.
#pragma once

#include <string>

#include "storage/database.h"

namespace deepladder::storage::testing {

// Undoes v9 (runs.status's CHECK gains 'stopped'): the table's text as v1 wrote it, by the same
// documented edit of sqlite_schema the migration makes; user_version becomes 8.
inline void downgradeToSchemaV8(Database& db) {
  const int64_t version = db.queryInt("PRAGMA schema_version");
  db.execute(
      "PRAGMA writable_schema = ON;"
      "UPDATE sqlite_schema SET sql = replace(sql, ',''cancelled'',''stopped'')', "
      "',''cancelled'')') WHERE type = 'table' AND name = 'runs';"
      "PRAGMA schema_version = " +
      std::to_string(version + 1) + "; PRAGMA writable_schema = OFF; PRAGMA user_version = 8;");
}

// Undoes v9 and v8 (ladder hashes of the parsed spec): the tables are v7's then, the caller sets
// the hashes it wants; user_version becomes 7.
inline void downgradeToSchemaV7(Database& db) {
  downgradeToSchemaV8(db);
  db.execute("PRAGMA user_version = 7;");
}

// Undoes v9, v8 and v7 (saved plot views); user_version becomes 6.
inline void downgradeToSchemaV6(Database& db) {
  downgradeToSchemaV7(db);
  db.execute("DROP TABLE saved_views; PRAGMA user_version = 6;");
}

// Undoes v7 and v6 (the live projection's error log); user_version becomes 5.
inline void downgradeToSchemaV5(Database& db) {
  downgradeToSchemaV6(db);
  db.execute("DROP TABLE projection_scores; PRAGMA user_version = 5;");
}

// Undoes v7, v6 and v5 (metric key ids): metrics and metric_pyramid get their text key column back,
// as schema v4 had them (rows kept); user_version becomes 4.
inline void downgradeToSchemaV4(Database& db) {
  downgradeToSchemaV5(db);
  db.execute(R"sql(
DROP VIEW metric_values;
DROP TRIGGER runs_delete_metrics;
CREATE TABLE metrics_v4(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key    TEXT NOT NULL,
  step   INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  flops  REAL NOT NULL,
  value  REAL,
  wall   REAL,
  PRIMARY KEY(run_id, key, step)
) WITHOUT ROWID;
INSERT INTO metrics_v4 SELECT m.run_id, k.name, m.step, m.tokens, m.flops, m.value, m.wall
  FROM metrics m JOIN metric_keys k ON k.id = m.key_id;
DROP TABLE metrics;
ALTER TABLE metrics_v4 RENAME TO metrics;
CREATE TABLE metric_pyramid_v4(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key TEXT NOT NULL, level INTEGER NOT NULL, bucket INTEGER NOT NULL, count INTEGER NOT NULL,
  first_step INTEGER NOT NULL, last_step INTEGER NOT NULL, min_step INTEGER, min_tokens INTEGER,
  min_flops REAL, min_value REAL, max_step INTEGER, max_tokens INTEGER, max_flops REAL,
  max_value REAL,
  PRIMARY KEY(run_id, key, level, bucket)
) WITHOUT ROWID;
INSERT INTO metric_pyramid_v4 SELECT p.run_id, k.name, p.level, p.bucket, p.count, p.first_step,
  p.last_step, p.min_step, p.min_tokens, p.min_flops, p.min_value, p.max_step, p.max_tokens,
  p.max_flops, p.max_value FROM metric_pyramid p JOIN metric_keys k ON k.id = p.key_id;
DROP TABLE metric_pyramid;
ALTER TABLE metric_pyramid_v4 RENAME TO metric_pyramid;
DROP TABLE metric_keys;
PRAGMA user_version = 4;
)sql");
}

// Undoes v7, v6, v5 and v4 (the metric pyramid), v3 (the fit cache columns, its trigger and
// indexes, the decisions table) and v2 (the stored plan's columns); user_version becomes 1. SQLite
// >= 3.35 drops columns.
inline void downgradeToSchemaV1(Database& db) {
  downgradeToSchemaV4(db);
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
