// Row tables of the database: metric curves, checkpoints, logit-lens KL, evals, events, fits
// and imported points. Writes are upserts on the primary key (idempotent on replay) and run in
// one transaction, or in a savepoint inside the caller's transaction.
#include "storage/database.h"
#include "storage/database_impl.h"

namespace deepladder::storage {

// ---- metrics --------------------------------------------------------------------------------
void Database::writeMetrics(const std::vector<MetricRow>& rows) {
  if (rows.empty()) return;
  Transaction transaction(*this);
  Statement& insert = impl_->prepared(
      "INSERT INTO metrics(run_id, key, step, tokens, flops, value, wall) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(run_id, key, step) DO UPDATE SET "
      "tokens = excluded.tokens, flops = excluded.flops, value = excluded.value, "
      "wall = excluded.wall");
  // SQLite keeps bindings across resets: rebind run_id and key only when they change.
  const std::string* bound_key = nullptr;
  int64_t bound_run = 0;
  bool first = true;
  for (const MetricRow& row : rows) {
    if (first || row.run_id != bound_run) {
      insert.bind(1, row.run_id);
      bound_run = row.run_id;
    }
    if (first || row.key != *bound_key) {
      insert.bindText(2, row.key, /*transient=*/false);  // `rows` outlives the statement's use
      bound_key = &row.key;
    }
    first = false;
    insert.bind(3, row.step);
    insert.bind(4, row.tokens);
    insert.bind(5, row.flops);
    insert.bind(6, row.value);  // NaN -> NULL
    insert.bind(7, row.wall);
    insert.run();
  }
  insert.bindNull(2);  // drop the pointer into `rows`
  transaction.commit();
}

std::vector<MetricPoint> Database::readMetric(int64_t run_id, const std::string& key) {
  Statement& select = impl_->prepared(
      "SELECT step, tokens, flops, value, wall FROM metrics WHERE run_id = ?1 AND key = ?2 "
      "ORDER BY step");
  ResetOnExit reset{select};
  select.bind(1, run_id);
  select.bindText(2, key);
  std::vector<MetricPoint> points;
  while (select.step()) {
    points.push_back(MetricPoint{select.columnInt(0), select.columnInt(1), select.columnDouble(2),
                                 select.columnDouble(3), select.columnDouble(4)});
  }
  return points;
}

std::vector<std::string> Database::metricKeys(int64_t run_id) {
  // A skip-scan over the primary key: one seek per distinct key, not one per row.
  Statement& select = impl_->prepared(
      "WITH RECURSIVE k(key) AS ("
      "  SELECT min(key) FROM metrics WHERE run_id = ?1"
      "  UNION ALL SELECT (SELECT min(key) FROM metrics WHERE run_id = ?1 AND key > k.key) "
      "  FROM k WHERE k.key IS NOT NULL) "
      "SELECT key FROM k WHERE key IS NOT NULL");
  ResetOnExit reset{select};
  select.bind(1, run_id);
  std::vector<std::string> keys;
  while (select.step()) keys.push_back(select.columnText(0));
  return keys;
}

// ---- checkpoints ----------------------------------------------------------------------------
void Database::addCheckpoint(const CheckpointRow& row) {
  Statement& insert = impl_->prepared(
      "INSERT INTO checkpoints(run_id, step, path, sha256) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT(run_id, step) DO UPDATE SET path = excluded.path, sha256 = excluded.sha256");
  insert.bind(1, row.run_id);
  insert.bind(2, row.step);
  insert.bindText(3, row.path);
  insert.bindText(4, row.sha256);
  insert.run();
}

namespace {
CheckpointRow readCheckpoint(const Statement& s) {
  return CheckpointRow{s.columnInt(0), s.columnInt(1), s.columnText(2), s.columnText(3)};
}
}  // namespace

std::vector<CheckpointRow> Database::checkpoints(int64_t run_id) {
  Statement& select = impl_->prepared(
      "SELECT run_id, step, path, sha256 FROM checkpoints WHERE run_id = ?1 ORDER BY step");
  ResetOnExit reset{select};
  select.bind(1, run_id);
  std::vector<CheckpointRow> rows;
  while (select.step()) rows.push_back(readCheckpoint(select));
  return rows;
}

std::optional<CheckpointRow> Database::latestCheckpoint(int64_t run_id) {
  Statement& select = impl_->prepared(
      "SELECT run_id, step, path, sha256 FROM checkpoints WHERE run_id = ?1 "
      "ORDER BY step DESC LIMIT 1");
  ResetOnExit reset{select};
  select.bind(1, run_id);
  if (!select.step()) return std::nullopt;
  return readCheckpoint(select);
}

// ---- lens -----------------------------------------------------------------------------------
void Database::writeLens(const std::vector<LensRow>& rows) {
  if (rows.empty()) return;
  Transaction transaction(*this);
  Statement& insert = impl_->prepared(
      "INSERT INTO lens(run_id, step, block, kl) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT(run_id, step, block) DO UPDATE SET kl = excluded.kl");
  for (const LensRow& row : rows) {
    insert.bind(1, row.run_id);
    insert.bind(2, row.step);
    insert.bind(3, row.block);
    insert.bind(4, row.kl);
    insert.run();
  }
  transaction.commit();
}

std::vector<LensRow> Database::lens(int64_t run_id) {
  Statement& select = impl_->prepared(
      "SELECT run_id, step, block, kl FROM lens WHERE run_id = ?1 ORDER BY step, block");
  ResetOnExit reset{select};
  select.bind(1, run_id);
  std::vector<LensRow> rows;
  while (select.step()) {
    rows.push_back(LensRow{select.columnInt(0), select.columnInt(1), select.columnInt(2),
                           select.columnDouble(3)});
  }
  return rows;
}

// ---- evals ----------------------------------------------------------------------------------
void Database::writeEvals(const std::vector<EvalRow>& rows) {
  if (rows.empty()) return;
  Transaction transaction(*this);
  Statement& insert = impl_->prepared(
      "INSERT INTO evals(run_id, step, task, n_bits, T, correct, total) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(run_id, step, task, n_bits, T) "
      "DO UPDATE SET correct = excluded.correct, total = excluded.total");
  for (const EvalRow& row : rows) {
    insert.bind(1, row.run_id);
    insert.bind(2, row.step);
    insert.bindText(3, row.task);
    insert.bind(4, row.n_bits);
    insert.bind(5, row.T);
    insert.bind(6, row.correct);
    insert.bind(7, row.total);
    insert.run();
  }
  transaction.commit();
}

std::vector<EvalRow> Database::evals(int64_t run_id) {
  Statement& select = impl_->prepared(
      "SELECT run_id, step, task, n_bits, T, correct, total FROM evals WHERE run_id = ?1 "
      "ORDER BY step, task, n_bits, T");
  ResetOnExit reset{select};
  select.bind(1, run_id);
  std::vector<EvalRow> rows;
  while (select.step()) {
    rows.push_back(EvalRow{select.columnInt(0), select.columnInt(1), select.columnText(2),
                           select.columnInt(3), select.columnInt(4), select.columnInt(5),
                           select.columnInt(6)});
  }
  return rows;
}

// ---- events ---------------------------------------------------------------------------------
void Database::writeEvents(const std::vector<EventRow>& rows) {
  if (rows.empty()) return;
  Transaction transaction(*this);
  Statement& insert = impl_->prepared(
      "INSERT INTO events(run_id, step, name, detail) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT(run_id, step, name) DO UPDATE SET detail = excluded.detail");
  for (const EventRow& row : rows) {
    insert.bind(1, row.run_id);
    insert.bind(2, row.step);
    insert.bindText(3, row.name);
    insert.bindText(4, row.detail);
    insert.run();
  }
  transaction.commit();
}

std::vector<EventRow> Database::events(int64_t run_id) {
  Statement& select = impl_->prepared(
      "SELECT run_id, step, name, detail FROM events WHERE run_id = ?1 ORDER BY step, name");
  ResetOnExit reset{select};
  select.bind(1, run_id);
  std::vector<EventRow> rows;
  while (select.step()) {
    rows.push_back(EventRow{select.columnInt(0), select.columnInt(1), select.columnText(2),
                            select.columnText(3)});
  }
  return rows;
}

// ---- fits -----------------------------------------------------------------------------------
int64_t Database::insertFit(const FitRecord& fit) {
  Statement& insert = impl_->prepared(
      "INSERT INTO fits(source, arm, form, params, stderr) VALUES (?1, ?2, ?3, ?4, ?5)");
  insert.bindText(1, fit.source);
  insert.bindText(2, fit.arm);
  insert.bindText(3, fit.form);
  insert.bindText(4, fit.params_json.empty() ? std::string("{}") : fit.params_json);
  insert.bindText(5, fit.stderr_json.empty() ? std::string("{}") : fit.stderr_json);
  insert.run();
  return queryInt("SELECT last_insert_rowid()");
}

std::vector<FitRecord> Database::fits(const std::string& source) {
  Statement& select = impl_->prepared(
      "SELECT id, source, arm, form, params, stderr, created FROM fits "
      "WHERE ?1 = '' OR source = ?1 ORDER BY id");
  ResetOnExit reset{select};
  select.bindText(1, source);
  std::vector<FitRecord> rows;
  while (select.step()) {
    rows.push_back(FitRecord{select.columnInt(0), select.columnText(1), select.columnText(2),
                             select.columnText(3), select.columnText(4), select.columnText(5),
                             select.columnText(6)});
  }
  return rows;
}

// ---- external points ------------------------------------------------------------------------
void Database::replaceExternalPoints(const std::string& source,
                                     const std::vector<ExternalPoint>& points) {
  Transaction transaction(*this);
  Statement& remove = impl_->prepared("DELETE FROM external_points WHERE source = ?1");
  remove.bindText(1, source);
  remove.run();
  Statement& insert = impl_->prepared(
      "INSERT INTO external_points(source, arm, compute, loss, params, tokens, depth) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  for (const ExternalPoint& p : points) {
    insert.bindText(1, source);
    insert.bindText(2, p.arm);
    insert.bind(3, p.compute);
    insert.bind(4, p.loss);
    insert.bind(5, p.params);
    insert.bind(6, p.tokens);
    insert.bind(7, p.depth);
    insert.run();
  }
  transaction.commit();
}

std::vector<ExternalPoint> Database::externalPoints(const std::string& source) {
  Statement& select = impl_->prepared(
      "SELECT source, arm, compute, loss, params, tokens, depth FROM external_points "
      "WHERE ?1 = '' OR source = ?1 ORDER BY source, arm, compute");
  ResetOnExit reset{select};
  select.bindText(1, source);
  std::vector<ExternalPoint> rows;
  while (select.step()) {
    rows.push_back(ExternalPoint{select.columnText(0), select.columnText(1), select.columnDouble(2),
                                 select.columnDouble(3), select.columnOptionalDouble(4),
                                 select.columnOptionalDouble(5), select.columnOptionalDouble(6)});
  }
  return rows;
}

}  // namespace deepladder::storage
