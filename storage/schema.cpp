// The schema (design.md, "Storage sketch": v1; v2 adds the stored plan; v3 the fit cache and the
// adaptive ladders' decisions; v4 the metric decimation pyramid; v5 integer metric key ids; v6 the
// live projection's error log; v7 saved plot views; v8 ladder hashes of the parsed spec,
// storage/ladder_rehash.h; v9 the status 'stopped' of sweep halving) and its migration steps. Each
// step takes the database from version k-1 to k; add a step (never edit an old one) when the
// schema changes.
#include "storage/schema.h"

#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/run_status.h"
#include "storage/database.h"
#include "storage/ladder_rehash.h"
#include "storage/plan_backfill.h"
#include "storage/pyramid_writer.h"
#include "storage/statement.h"

namespace deepladder::storage {

namespace {

// ---- version 1: the first schema ------------------------------------------------------------
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE ladders(
  id      INTEGER PRIMARY KEY,
  name    TEXT NOT NULL,
  spec    TEXT NOT NULL,
  hash    TEXT NOT NULL UNIQUE,
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))
);
CREATE INDEX ladders_name ON ladders(name);

CREATE TABLE runs(
  id              INTEGER PRIMARY KEY,
  ladder_id       INTEGER REFERENCES ladders(id) ON DELETE CASCADE,
  name            TEXT NOT NULL DEFAULT '',
  arm             TEXT NOT NULL DEFAULT '',
  size            TEXT NOT NULL DEFAULT '',
  seed            INTEGER NOT NULL DEFAULT 0,
  config          TEXT NOT NULL DEFAULT '{}',   -- the run's full config as JSON
  config_hash     TEXT NOT NULL DEFAULT '',
  status          TEXT NOT NULL DEFAULT @queued@ CHECK (status IN @statuses_v1@),
  attempt         INTEGER NOT NULL DEFAULT 0,
  device          TEXT NOT NULL DEFAULT '',
  job_id          TEXT NOT NULL DEFAULT '',
  heartbeat       REAL NOT NULL DEFAULT 0,      -- unix seconds of the worker's last sign of life
  params          INTEGER NOT NULL DEFAULT 0,
  flops_per_token REAL NOT NULL DEFAULT 0,
  step            INTEGER NOT NULL DEFAULT 0,
  tokens          INTEGER NOT NULL DEFAULT 0,
  flops           REAL NOT NULL DEFAULT 0,
  final_loss      REAL,
  error           TEXT NOT NULL DEFAULT '',
  workdir         TEXT NOT NULL DEFAULT '',
  created         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
  started         REAL NOT NULL DEFAULT 0,
  finished        REAL NOT NULL DEFAULT 0
);
CREATE INDEX runs_ladder ON runs(ladder_id);
CREATE INDEX runs_status ON runs(status);

-- One point of one curve. value NULL = the worker logged NaN.
CREATE TABLE metrics(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key    TEXT NOT NULL,
  step   INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  flops  REAL NOT NULL,
  value  REAL,
  wall   REAL,
  PRIMARY KEY(run_id, key, step)
) WITHOUT ROWID;

CREATE TABLE checkpoints(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step   INTEGER NOT NULL,
  path   TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  PRIMARY KEY(run_id, step)
);

CREATE TABLE lens(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step   INTEGER NOT NULL,
  block  INTEGER NOT NULL,
  kl     REAL,
  PRIMARY KEY(run_id, step, block)
) WITHOUT ROWID;

CREATE TABLE evals(
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step    INTEGER NOT NULL,
  task    TEXT NOT NULL,
  n_bits  INTEGER NOT NULL,
  T       INTEGER NOT NULL,
  correct INTEGER NOT NULL,
  total   INTEGER NOT NULL,
  PRIMARY KEY(run_id, step, task, n_bits, T)
);

CREATE TABLE events(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step   INTEGER NOT NULL,
  name   TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '',
  PRIMARY KEY(run_id, step, name)
);

CREATE TABLE fits(
  id      INTEGER PRIMARY KEY,
  source  TEXT NOT NULL,
  arm     TEXT NOT NULL,
  form    TEXT NOT NULL,
  params  TEXT NOT NULL DEFAULT '{}',   -- JSON: fitted parameters
  stderr  TEXT NOT NULL DEFAULT '{}',   -- JSON: their standard errors
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))
);
CREATE INDEX fits_source ON fits(source);

-- Points imported from results CSVs (`deepladder import`).
CREATE TABLE external_points(
  source  TEXT NOT NULL,
  arm     TEXT NOT NULL,
  compute REAL NOT NULL,
  loss    REAL NOT NULL,
  params  REAL,
  tokens  REAL,
  depth   REAL
);
CREATE INDEX external_points_source ON external_points(source, arm);
)sql";

// ---- version 2: the plan stored typed ------------------------------------------------------
// ladders gain the task and the resources (JSON) they were queued with; runs gain their task
// and the plan_* columns (core/ladder/run_plan.h), computed once at enqueue.
constexpr const char* kSchemaV2 = R"sql(
ALTER TABLE ladders ADD COLUMN task TEXT NOT NULL DEFAULT 'lm';
ALTER TABLE ladders ADD COLUMN resources TEXT NOT NULL DEFAULT '{}';
ALTER TABLE runs ADD COLUMN task TEXT NOT NULL DEFAULT 'lm';
ALTER TABLE runs ADD COLUMN plan_steps INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN plan_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN plan_flops REAL NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN plan_params INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN plan_flops_per_token REAL NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN plan_depth INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN plan_executed_depth INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN plan_executed_depth_after_growth INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN plan_crossover_step INTEGER NOT NULL DEFAULT -1;
ALTER TABLE runs ADD COLUMN plan_ranks INTEGER NOT NULL DEFAULT 1;
ALTER TABLE runs ADD COLUMN plan_gpus_per_rank INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN plan_est_seconds REAL NOT NULL DEFAULT 0;
)sql";

// ---- version 3: the fits table as a cache of fits, and adaptive ladders' decisions -----------
// A cached fit is found by cache_key (a hash of its points and options, fitting/fit_cache_key.h);
// `arms` lists the arms whose runs went into it as ",a,b,": when a run of one of them finishes
// (or stops being finished) the trigger drops the entry, whichever process marked the run.
// Fits written by `deepladder fit` as a record keep cache_key = ''.
constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE fits ADD COLUMN cache_key TEXT NOT NULL DEFAULT '';
ALTER TABLE fits ADD COLUMN ladder_id INTEGER REFERENCES ladders(id) ON DELETE CASCADE;
ALTER TABLE fits ADD COLUMN arms TEXT NOT NULL DEFAULT '';
ALTER TABLE fits ADD COLUMN result TEXT NOT NULL DEFAULT '';   -- JSON: the whole result
CREATE UNIQUE INDEX fits_cache_key ON fits(cache_key) WHERE cache_key != '';
CREATE INDEX fits_ladder ON fits(ladder_id);

CREATE TRIGGER fits_drop_when_a_run_finishes AFTER UPDATE OF status ON runs
WHEN (NEW.status = @finished@) != (OLD.status = @finished@)
BEGIN
  DELETE FROM fits WHERE cache_key != '' AND ladder_id = NEW.ladder_id
                     AND instr(arms, ',' || NEW.arm || ',') > 0;
END;

-- What an adaptive ladder decided at each step, with every candidate it weighed (JSON), so its
-- history can be replayed.
CREATE TABLE decisions(
  id           INTEGER PRIMARY KEY,
  ladder_id    INTEGER NOT NULL REFERENCES ladders(id) ON DELETE CASCADE,
  created      REAL NOT NULL,                 -- unix seconds
  kind         TEXT NOT NULL,                 -- queue, stop-budget, stop-width
  run_id       INTEGER REFERENCES runs(id) ON DELETE SET NULL,  -- the run it queued
  spent_flops  REAL NOT NULL DEFAULT 0,       -- planned FLOPs queued before this decision
  budget_flops REAL NOT NULL DEFAULT 0,
  reason       TEXT NOT NULL DEFAULT '',
  candidates   TEXT NOT NULL DEFAULT '[]'     -- JSON array: every candidate and its scores
);
CREATE INDEX decisions_ladder ON decisions(ladder_id, id);
)sql";

// ---- version 4: the metric decimation pyramid ------------------------------------------------
// Per run and metric key, levels 0..4 of buckets spanning 16 << 2 level steps
// (core/metric_pyramid.h): the bucket's row count, first and last step, and its lowest and highest
// point (min_* / max_*, NULL when the bucket holds no finite value). Kept by
// Database::writeMetrics; the migration builds it for the rows already stored.
constexpr const char* kSchemaV4 = R"sql(
CREATE TABLE metric_pyramid(
  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key        TEXT NOT NULL,
  level      INTEGER NOT NULL,
  bucket     INTEGER NOT NULL,   -- step >> (4 + 2 level)
  count      INTEGER NOT NULL,
  first_step INTEGER NOT NULL,
  last_step  INTEGER NOT NULL,
  min_step   INTEGER,
  min_tokens INTEGER,
  min_flops  REAL,
  min_value  REAL,
  max_step   INTEGER,
  max_tokens INTEGER,
  max_flops  REAL,
  max_value  REAL,
  PRIMARY KEY(run_id, key, level, bucket)
) WITHOUT ROWID;
)sql";

// ---- version 5: metric keys as integer ids -------------------------------------------------
// metrics and metric_pyramid name their key by metric_keys.id instead of its text: the primary
// key's records are shorter and compare as integers, which makes the B-tree insert of a metric
// row (most of ingestion's time) cheaper. Ids are created by storage as new names arrive and never
// deleted. Neither table carries a foreign key any more: checking one costs a parent lookup per
// inserted row (~10% of ingestion's instructions); Database::writeMetrics checks once per batch
// that the runs it writes exist, and a trigger deletes a run's rows with it, as ON DELETE CASCADE
// did. The rows already stored are copied over with their key's id.
constexpr const char* kSchemaV5 = R"sql(
CREATE TABLE metric_keys(
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
INSERT INTO metric_keys(name)
  SELECT key FROM metrics UNION SELECT key FROM metric_pyramid ORDER BY 1;

CREATE TABLE metrics_v5(
  run_id INTEGER NOT NULL,   -- runs.id
  key_id INTEGER NOT NULL,   -- metric_keys.id
  step   INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  flops  REAL NOT NULL,
  value  REAL,
  wall   REAL,
  PRIMARY KEY(run_id, key_id, step)
) WITHOUT ROWID;
INSERT INTO metrics_v5(run_id, key_id, step, tokens, flops, value, wall)
  SELECT m.run_id, k.id, m.step, m.tokens, m.flops, m.value, m.wall
  FROM metrics m JOIN metric_keys k ON k.name = m.key ORDER BY m.run_id, k.id, m.step;
DROP TABLE metrics;
ALTER TABLE metrics_v5 RENAME TO metrics;

CREATE TABLE metric_pyramid_v5(
  run_id     INTEGER NOT NULL,   -- runs.id
  key_id     INTEGER NOT NULL,   -- metric_keys.id
  level      INTEGER NOT NULL,
  bucket     INTEGER NOT NULL,   -- step >> (4 + 2 level)
  count      INTEGER NOT NULL,
  first_step INTEGER NOT NULL,
  last_step  INTEGER NOT NULL,
  min_step   INTEGER,
  min_tokens INTEGER,
  min_flops  REAL,
  min_value  REAL,
  max_step   INTEGER,
  max_tokens INTEGER,
  max_flops  REAL,
  max_value  REAL,
  PRIMARY KEY(run_id, key_id, level, bucket)
) WITHOUT ROWID;
INSERT INTO metric_pyramid_v5
  SELECT p.run_id, k.id, p.level, p.bucket, p.count, p.first_step, p.last_step, p.min_step,
         p.min_tokens, p.min_flops, p.min_value, p.max_step, p.max_tokens, p.max_flops,
         p.max_value
  FROM metric_pyramid p JOIN metric_keys k ON k.name = p.key
  ORDER BY p.run_id, k.id, p.level, p.bucket;
DROP TABLE metric_pyramid;
ALTER TABLE metric_pyramid_v5 RENAME TO metric_pyramid;

CREATE TRIGGER runs_delete_metrics AFTER DELETE ON runs
BEGIN
  DELETE FROM metrics WHERE run_id = OLD.id;
  DELETE FROM metric_pyramid WHERE run_id = OLD.id;
END;

-- For queries by hand (sqlite3, pandas): the metric rows with their key's name.
CREATE VIEW metric_values AS
  SELECT m.run_id, k.name AS key, m.step, m.tokens, m.flops, m.value, m.wall
  FROM metrics m JOIN metric_keys k ON k.id = m.key_id;
)sql";

// ---- version 6: the live projection's error log ----------------------------------------------
// Each finished run of a ladder scored against the fit made before it (fitting/live_score.h): the
// loss that fit predicted at the run's compute, its interval and the relative error. One row per
// run (scoring it again replaces the row).
constexpr const char* kSchemaV6 = R"sql(
CREATE TABLE projection_scores(
  id             INTEGER PRIMARY KEY,
  ladder_id      INTEGER NOT NULL REFERENCES ladders(id) ON DELETE CASCADE,
  run_id         INTEGER NOT NULL UNIQUE REFERENCES runs(id) ON DELETE CASCADE,
  created        REAL NOT NULL,      -- unix seconds
  arm            TEXT NOT NULL,
  size           TEXT NOT NULL DEFAULT '',
  compute        REAL NOT NULL,      -- the run's training FLOPs
  measured_loss  REAL NOT NULL,
  predicted_loss REAL NOT NULL,      -- L(C) of the fit before the run
  lo             REAL,               -- that fit's bootstrap interval (NULL: none)
  hi             REAL,
  rel_error      REAL NOT NULL,      -- (predicted - measured) / measured
  extrapolation  REAL,               -- compute / largest compute of the arm fitted before
  fitted_runs    INTEGER NOT NULL    -- finished runs behind the fit before
);
CREATE INDEX projection_scores_ladder ON projection_scores(ladder_id, created);
)sql";

// ---- version 7: saved plot views ---------------------------------------------------------------
// A named view of a plot (today the scatter of runs, core/scatter_spec.h) with its settings as
// JSON, so the workbench and `deepladder plot scatter --view NAME` draw the same picture.
constexpr const char* kSchemaV7 = R"sql(
CREATE TABLE saved_views(
  name    TEXT PRIMARY KEY,
  kind    TEXT NOT NULL,             -- "scatter"
  spec    TEXT NOT NULL DEFAULT '{}', -- the view's settings as JSON
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))
);
)sql";

// ---- version 9: the status 'stopped' (sweep halving, core/run_status.h) ----------------------
// runs.status's CHECK constraint gains 'stopped'. Widening a CHECK changes no stored row, so it
// is the edit of the table's text in sqlite_schema that SQLite documents for it ("Making Other
// Kinds Of Table Schema Changes", lang_altertable.html): writable_schema on, the text replaced,
// schema_version bumped so every connection re-reads it, writable_schema off. A new database gets
// v1's text and this edit, like any other.
// The v1 list (as v1's text spells it, core/run_status.h) and the same list with 'stopped'.
std::string runsStatusCheckV8() {
  return sqlStatusList(kRunStatusesOfSchemaV1);
}
std::string runsStatusCheckV9() {
  std::string list = runsStatusCheckV8();
  return list.substr(0, list.size() - 1) + "," + sqlStatus(RunStatus::kStopped) + ")";
}

void exec(sqlite3* db, const char* sql, const char* context);

void widenRunStatusCheck(sqlite3* db) {
  Statement version(db, "PRAGMA schema_version");
  version.step();
  const int64_t schema_version = version.columnInt(0);
  exec(db, "PRAGMA writable_schema = ON", "allowing the status check's edit (schema v9)");
  {
    Statement edit(db,
                   "UPDATE sqlite_schema SET sql = replace(sql, ?1, ?2) "
                   "WHERE type = 'table' AND name = 'runs'");
    edit.bindText(1, runsStatusCheckV8());
    edit.bindText(2, runsStatusCheckV9());
    edit.step();
  }
  exec(db, ("PRAGMA schema_version = " + std::to_string(schema_version + 1)).c_str(),
       "bumping schema_version (schema v9)");
  exec(db, "PRAGMA writable_schema = OFF", "ending the status check's edit (schema v9)");
}

void exec(sqlite3* db, const char* sql, const char* context) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &message);
  if (message) sqlite3_free(message);
  checkSqlite(db, rc, context);
}

// table -> its columns, in order.
using TableColumns = std::map<std::string, std::vector<std::string>>;

TableColumns tableColumns(sqlite3* db) {
  TableColumns out;
  Statement tables(
      db, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  while (tables.step()) out[tables.columnText(0)];
  for (auto& [table, columns] : out) {
    Statement info(db, "SELECT name FROM pragma_table_info(?1)");
    info.bindText(1, table);
    while (info.step()) columns.push_back(info.columnText(0));
  }
  return out;
}

// The tables and columns of the current schema, read once from an in-memory copy of it.
const TableColumns& expectedColumns() {
  static const TableColumns expected = [] {
    sqlite3* memory = nullptr;
    sqlite3_open_v2(":memory:", &memory, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    migrate(memory, 0);  // every step, as a new database gets them
    TableColumns columns = tableColumns(memory);
    sqlite3_close(memory);
    return columns;
  }();
  return expected;
}

}  // namespace

std::string schemaProblem(sqlite3* db) {
  const TableColumns have = tableColumns(db);
  for (const auto& [table, columns] : expectedColumns()) {
    const auto it = have.find(table);
    if (it == have.end()) return "table '" + table + "' is missing";
    for (const auto& column : columns)
      if (std::find(it->second.begin(), it->second.end(), column) == it->second.end())
        return "table '" + table + "' has no column '" + column + "'";
  }
  return {};
}

// The schema text with its status words filled in from core/run_status.h: @queued@, @finished@
// (quoted words) and @statuses_v1@ (the list the v1 CHECK admits).
std::string withStatusWords(std::string sql) {
  const std::pair<std::string, std::string> words[] = {
      {"@queued@", sqlStatus(RunStatus::kQueued)},
      {"@finished@", sqlStatus(RunStatus::kFinished)},
      {"@statuses_v1@", sqlStatusList(kRunStatusesOfSchemaV1)},
  };
  for (const auto& [token, word] : words)
    for (size_t at = sql.find(token); at != std::string::npos; at = sql.find(token, at))
      sql.replace(at, token.size(), word);
  return sql;
}

void migrate(sqlite3* db, int from_version) {
  static_assert(Database::kSchemaVersion == 9, "add the migration step for the new version");
  if (from_version < 1) exec(db, withStatusWords(kSchemaV1).c_str(), "creating schema v1");
  if (from_version < 2) {
    exec(db, kSchemaV2, "adding the plan columns (schema v2)");
    backfillPlans(db);
  }
  if (from_version < 3)
    exec(db, withStatusWords(kSchemaV3).c_str(), "migrating to schema v3 (fit cache, decisions)");
  // v4's pyramid is built from the stored rows after v5 has given them key ids: the pyramid
  // writer writes the current layout.
  if (from_version < 4) exec(db, kSchemaV4, "adding the metric pyramid (schema v4)");
  if (from_version < 5) exec(db, kSchemaV5, "migrating to integer metric key ids (schema v5)");
  if (from_version < 4) buildPyramidForAllMetrics(db);
  if (from_version < 6) exec(db, kSchemaV6, "adding the projection error log (schema v6)");
  if (from_version < 7) exec(db, kSchemaV7, "adding saved plot views (schema v7)");
  if (from_version < 8) rehashLadderSpecs(db);  // no table changes: the stored hashes' meaning
  if (from_version < 9) widenRunStatusCheck(db);
  exec(db, ("PRAGMA user_version = " + std::to_string(Database::kSchemaVersion)).c_str(),
       "setting user_version");
}

}  // namespace deepladder::storage
