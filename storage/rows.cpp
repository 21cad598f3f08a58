// Row tables of the database: metric curves, checkpoints, logit-lens KL, evals, events, fits
// and imported points. Writes are upserts on the primary key (idempotent on replay) and run in
// one transaction, or in a savepoint inside the caller's transaction.
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "storage/chunked_rows.h"
#include "storage/database.h"
#include "storage/database_impl.h"
#include "storage/pyramid_writer.h"

namespace deepladder::storage {

// ---- metrics --------------------------------------------------------------------------------
namespace {

// The metric upsert, up to 512 rows a statement (storage/chunked_rows.h): one statement execution
// carries a chunk of rows, so the VDBE's per-statement cost (start, cursors, halt) is paid once per
// chunk instead of once per row. 512 measured ~3% fewer instructions per row than 128; larger
// chunks gained nothing. Each row's run_id and key_id are the statement's parameters ?1 and ?2
// (one curve per statement), then its step, tokens, flops, value and wall.
const ChunkSql& metricUpsert() {
  static const ChunkSql sql(512, 2, 5, [](const std::string& values) {
    return "INSERT INTO metrics(run_id, key_id, step, tokens, flops, value, wall) VALUES " +
           values +
           " ON CONFLICT(run_id, key_id, step) DO UPDATE SET tokens = excluded.tokens, "
           "flops = excluded.flops, value = excluded.value, wall = excluded.wall";
  });
  return sql;
}

// Binds `row`'s own columns (step, tokens, flops, value, wall) to parameters first+1 .. first+5
// straight through the C API (this is the hot loop of ingestion). NaN values become NULL (SQLite
// does that itself for NaN doubles). Returns the OR of the codes.
int bindMetricRow(sqlite3_stmt* s, int first, const MetricRow& row) {
  return sqlite3_bind_int64(s, first + 1, row.step) | sqlite3_bind_int64(s, first + 2, row.tokens) |
         sqlite3_bind_double(s, first + 3, row.flops) |
         sqlite3_bind_double(s, first + 4, row.value) | sqlite3_bind_double(s, first + 5, row.wall);
}

// The order to insert `rows` in: primary-key order (run_id, key, step), so that neighbouring
// inserts land on the same B-tree leaf, and stable, so a key repeated within the batch keeps its
// last value. Rows usually arrive step by step with a handful of keys interleaved: grouping by
// (run_id, key) is a linear pass, and steps within a group are then already ascending.
std::vector<uint32_t> primaryKeyOrder(const std::vector<MetricRow>& rows) {
  struct Group {
    int64_t run_id;
    const std::string* key;
    std::vector<uint32_t> rows;
  };
  constexpr size_t kMaxGroups = 256;
  std::vector<Group> groups;
  size_t last = 0;
  for (uint32_t i = 0; i < rows.size(); ++i) {
    const MetricRow& row = rows[i];
    auto matches = [&row](const Group& g) { return g.run_id == row.run_id && *g.key == row.key; };
    if (groups.empty() || !matches(groups[last])) {
      last = 0;
      while (last < groups.size() && !matches(groups[last])) ++last;
      if (last == groups.size()) {
        if (groups.size() == kMaxGroups) break;  // many keys: fall back to a full sort below
        groups.push_back(Group{row.run_id, &row.key, {}});
      }
    }
    groups[last].rows.push_back(i);
  }
  std::vector<uint32_t> order;
  order.reserve(rows.size());
  auto byStep = [&rows](uint32_t a, uint32_t b) { return rows[a].step < rows[b].step; };
  if (groups.size() == kMaxGroups) {
    for (uint32_t i = 0; i < rows.size(); ++i) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&rows](uint32_t a, uint32_t b) {
      const MetricRow& x = rows[a];
      const MetricRow& y = rows[b];
      if (x.run_id != y.run_id) return x.run_id < y.run_id;
      const int c = x.key.compare(y.key);
      return c != 0 ? c < 0 : x.step < y.step;
    });
    return order;
  }
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return a.run_id != b.run_id ? a.run_id < b.run_id : *a.key < *b.key;
  });
  for (Group& g : groups) {
    if (!std::is_sorted(g.rows.begin(), g.rows.end(), byStep))
      std::stable_sort(g.rows.begin(), g.rows.end(), byStep);
    order.insert(order.end(), g.rows.begin(), g.rows.end());
  }
  return order;
}

}  // namespace

void Database::writeMetrics(const std::vector<MetricRow>& rows) {
  if (rows.empty()) return;
  const std::vector<uint32_t> order = primaryKeyOrder(rows);
  Transaction transaction(*this);
  // The id of each key name in the batch (metric_keys, schema v5), created when new.
  auto keyId = [this](const std::string& name) {
    Statement& select = impl_->prepared("SELECT id FROM metric_keys WHERE name = ?1");
    ResetOnExit reset{select};
    select.bindText(1, name);
    if (select.step()) return select.columnInt(0);
    Statement& insert = impl_->prepared("INSERT INTO metric_keys(name) VALUES (?1)");
    insert.bindText(1, name);
    insert.run();
    return static_cast<int64_t>(sqlite3_last_insert_rowid(impl_->db));
  };
  // metrics has no foreign key (schema v5): each run written must exist, checked once per batch.
  auto requireRun = [this](int64_t run_id) {
    Statement& select = impl_->prepared("SELECT 1 FROM runs WHERE id = ?1");
    ResetOnExit reset{select};
    select.bind(1, run_id);
    if (!select.step())
      throw std::runtime_error("cannot write metric rows of run " + std::to_string(run_id) +
                               ": no such run");
  };
  // The curves written (runs of `order` with one run_id and key, steps ascending), and whether
  // each only appends after its stored steps: checked before inserting, for the pyramid.
  PyramidWriter pyramid(
      [this](const std::string& sql) -> Statement& { return impl_->prepared(sql); });
  struct Curve {
    size_t begin, end;
    int64_t key_id;
    bool appended;
  };
  std::vector<Curve> curves;
  const std::string* last_key = nullptr;
  int64_t last_key_id = 0, last_run_id = 0;
  for (size_t begin = 0; begin < order.size();) {
    const MetricRow& first = rows[order[begin]];
    size_t end = begin + 1;
    while (end < order.size() && rows[order[end]].run_id == first.run_id &&
           rows[order[end]].key == first.key)
      ++end;
    if (begin == 0 || first.run_id != last_run_id) requireRun(first.run_id);
    last_run_id = first.run_id;
    if (!last_key || *last_key != first.key) last_key_id = keyId(first.key);
    last_key = &first.key;
    curves.push_back(
        {begin, end, last_key_id, pyramid.lastStoredStep(first.run_id, last_key_id) < first.step});
    begin = end;
  }
  // Each curve's rows through multi-row statements that carry its run and key id once.
  ChunkStatements upserts(metricUpsert(), [this](const std::string& sql) -> Statement& {
    return impl_->prepared(sql);
  });
  for (const Curve& curve : curves) {
    const int64_t run_id = rows[order[curve.begin]].run_id;
    writeInChunks(
        curve.end - curve.begin, upserts,
        [&](sqlite3_stmt* s) {
          return sqlite3_bind_int64(s, 1, run_id) | sqlite3_bind_int64(s, 2, curve.key_id);
        },
        [&](sqlite3_stmt* s, size_t i, int first) {
          return bindMetricRow(s, first, rows[order[curve.begin + i]]);
        },
        "metric rows");
  }
  // Then the pyramid buckets these rows fell in, once per curve.
  std::vector<PyramidWriter::Point> points;
  for (const Curve& curve : curves) {
    points.clear();
    for (size_t i = curve.begin; i < curve.end; ++i) {
      const MetricRow& row = rows[order[i]];
      points.push_back({row.step, row.tokens, row.flops, row.value});
    }
    pyramid.rebuild(rows[order[curve.begin]].run_id, curve.key_id, points, curve.appended);
  }
  transaction.commit();
}

std::vector<MetricPoint> Database::readMetric(int64_t run_id, const std::string& key) {
  Statement& select = impl_->prepared(
      "SELECT step, tokens, flops, value, wall FROM metrics WHERE run_id = ?1 "
      "AND key_id = (SELECT id FROM metric_keys WHERE name = ?2) ORDER BY step");
  ResetOnExit reset{select};
  select.bind(1, run_id);
  select.bindText(2, key);
  // The hot loop of every plot: raw column calls, and a NULL check only where NULL can occur and
  // only when the value reads as 0.0 (which is what SQLite returns for NULL).
  sqlite3_stmt* s = select.handle();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto nullable = [s, nan](int column) {
    const double v = sqlite3_column_double(s, column);
    return v == 0.0 && sqlite3_column_type(s, column) == SQLITE_NULL ? nan : v;
  };
  std::vector<MetricPoint> points;
  points.reserve(1024);
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    points.push_back(MetricPoint{sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
                                 sqlite3_column_double(s, 2), nullable(3), nullable(4)});
  }
  if (rc != SQLITE_DONE) checkSqlite(sqlite3_db_handle(s), rc, "reading metric " + key);
  return points;
}

std::vector<std::string> Database::metricKeys(int64_t run_id) {
  // A skip-scan over the primary key: one seek per distinct key id, not one per row.
  Statement& select = impl_->prepared(
      "WITH RECURSIVE k(id) AS ("
      "  SELECT min(key_id) FROM metrics WHERE run_id = ?1"
      "  UNION ALL SELECT (SELECT min(key_id) FROM metrics WHERE run_id = ?1 AND key_id > k.id) "
      "  FROM k WHERE k.id IS NOT NULL) "
      "SELECT n.name FROM k JOIN metric_keys n ON n.id = k.id ORDER BY n.name");
  select.bind(1, run_id);
  return collectRows(select, [](const Statement& s) { return s.columnText(0); });
}

// ---- checkpoints ----------------------------------------------------------------------------
void Database::addCheckpoint(const CheckpointRow& row) {
  Statement& insert = impl_->prepared(
      "INSERT INTO checkpoints(run_id, step, path, sha256) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT(run_id, step) DO UPDATE SET path = excluded.path, sha256 = excluded.sha256");
  insert.bindAll(row.run_id, row.step, row.path, row.sha256);
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
  select.bind(1, run_id);
  return collectRows(select, readCheckpoint);
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
    insert.bindAll(row.run_id, row.step, row.block, row.kl);
    insert.run();
  }
  transaction.commit();
}

std::vector<LensRow> Database::lens(int64_t run_id) {
  Statement& select = impl_->prepared(
      "SELECT run_id, step, block, kl FROM lens WHERE run_id = ?1 ORDER BY step, block");
  select.bind(1, run_id);
  return collectRows(select, [](const Statement& s) {
    return LensRow{s.columnInt(0), s.columnInt(1), s.columnInt(2), s.columnDouble(3)};
  });
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
    insert.bindAll(row.run_id, row.step, row.task, row.n_bits, row.T, row.correct, row.total);
    insert.run();
  }
  transaction.commit();
}

std::vector<EvalRow> Database::evals(int64_t run_id) {
  Statement& select = impl_->prepared(
      "SELECT run_id, step, task, n_bits, T, correct, total FROM evals WHERE run_id = ?1 "
      "ORDER BY step, task, n_bits, T");
  select.bind(1, run_id);
  return collectRows(select, [](const Statement& s) {
    return EvalRow{s.columnInt(0), s.columnInt(1), s.columnText(2), s.columnInt(3),
                   s.columnInt(4), s.columnInt(5), s.columnInt(6)};
  });
}

// ---- events ---------------------------------------------------------------------------------
void Database::writeEvents(const std::vector<EventRow>& rows) {
  if (rows.empty()) return;
  Transaction transaction(*this);
  Statement& insert = impl_->prepared(
      "INSERT INTO events(run_id, step, name, detail) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT(run_id, step, name) DO UPDATE SET detail = excluded.detail");
  for (const EventRow& row : rows) {
    insert.bindAll(row.run_id, row.step, row.name, row.detail);
    insert.run();
  }
  transaction.commit();
}

std::vector<EventRow> Database::events(int64_t run_id) {
  Statement& select = impl_->prepared(
      "SELECT run_id, step, name, detail FROM events WHERE run_id = ?1 ORDER BY step, name");
  select.bind(1, run_id);
  return collectRows(select, [](const Statement& s) {
    return EventRow{s.columnInt(0), s.columnInt(1), s.columnText(2), s.columnText(3)};
  });
}

// ---- fits -----------------------------------------------------------------------------------
int64_t Database::insertFit(const FitRecord& fit) {
  Statement& insert = impl_->prepared(
      "INSERT INTO fits(source, arm, form, params, stderr) VALUES (?1, ?2, ?3, ?4, ?5)");
  insert.bindAll(fit.source, fit.arm, fit.form,
                 fit.params_json.empty() ? std::string("{}") : fit.params_json,
                 fit.stderr_json.empty() ? std::string("{}") : fit.stderr_json);
  insert.run();
  return queryInt("SELECT last_insert_rowid()");
}

std::vector<FitRecord> Database::fits(const std::string& source) {
  Statement& select = impl_->prepared(
      "SELECT id, source, arm, form, params, stderr, created FROM fits "
      "WHERE ?1 = '' OR source = ?1 ORDER BY id");
  select.bindText(1, source);
  return collectRows(select, [](const Statement& s) {
    return FitRecord{s.columnInt(0),  s.columnText(1), s.columnText(2), s.columnText(3),
                     s.columnText(4), s.columnText(5), s.columnText(6)};
  });
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
    insert.bindAll(source, p.arm, p.compute, p.loss, p.params, p.tokens, p.depth);
    insert.run();
  }
  transaction.commit();
}

std::vector<ExternalPoint> Database::externalPoints(const std::string& source) {
  Statement& select = impl_->prepared(
      "SELECT source, arm, compute, loss, params, tokens, depth FROM external_points "
      "WHERE ?1 = '' OR source = ?1 ORDER BY source, arm, compute");
  select.bindText(1, source);
  return collectRows(select, [](const Statement& s) {
    return ExternalPoint{s.columnText(0),           s.columnText(1),
                         s.columnDouble(2),         s.columnDouble(3),
                         s.columnOptionalDouble(4), s.columnOptionalDouble(5),
                         s.columnOptionalDouble(6)};
  });
}

}  // namespace deepladder::storage
