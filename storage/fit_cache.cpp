// Database members behind the fit cache, the fits' reader and the adaptive decisions: finished
// runs by the time they ended, cached fits by key, decisions by ladder (see schema.cpp, v3).
#include <chrono>

#include "core/run_status.h"
#include "storage/database.h"
#include "storage/database_impl.h"

namespace deepladder::storage {

std::vector<RunRecord> Database::finishedRuns(int64_t ladder_id) {
  Statement& select = impl_->prepared(
      "SELECT id, arm, size, seed, params, tokens, flops, final_loss, finished, name FROM runs "
      "WHERE ladder_id = ?1 AND status = 'finished' AND final_loss IS NOT NULL "
      "ORDER BY finished, id");
  ResetOnExit reset{select};
  select.bind(1, ladder_id);
  std::vector<RunRecord> runs;
  while (select.step()) {
    RunRecord r;
    r.id = select.columnInt(0);
    r.ladder_id = ladder_id;
    r.arm = select.columnText(1);
    r.size = select.columnText(2);
    r.seed = select.columnInt(3);
    r.params = select.columnInt(4);
    r.tokens = select.columnInt(5);
    r.flops = select.columnDouble(6);
    r.final_loss = select.columnOptionalDouble(7);
    r.finished = select.columnDouble(8);
    r.name = select.columnText(9);  // carries a sweep point (core/ladder/sweep.h)
    r.status = toString(RunStatus::kFinished);
    runs.push_back(std::move(r));
  }
  return runs;
}

std::optional<std::string> Database::cachedFit(const std::string& key) {
  Statement& select = impl_->prepared("SELECT result FROM fits WHERE cache_key = ?1");
  ResetOnExit reset{select};
  select.bindText(1, key);
  if (!select.step()) return std::nullopt;
  return select.columnText(0);
}

void Database::saveCachedFit(const CachedFitEntry& entry, std::optional<int64_t> ladder_id) {
  std::string arms = ",";
  for (const auto& a : entry.arms) arms += a + ",";
  if (entry.arms.empty()) arms.clear();
  Statement& upsert = impl_->prepared(
      "INSERT INTO fits(source, arm, form, params, cache_key, ladder_id, arms, result) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
      "ON CONFLICT(cache_key) WHERE cache_key != '' DO UPDATE SET source = excluded.source, "
      "arm = excluded.arm, form = excluded.form, params = excluded.params, "
      "ladder_id = excluded.ladder_id, arms = excluded.arms, result = excluded.result, "
      "created = strftime('%Y-%m-%dT%H:%M:%SZ','now')");
  upsert.bindAll(entry.source, entry.arm, entry.form,
                 entry.params_json.empty() ? std::string("{}") : entry.params_json, entry.key,
                 ladder_id, arms, entry.result_json);
  upsert.run();
}

int64_t Database::insertDecision(const DecisionRecord& d) {
  Statement& insert = impl_->prepared(
      "INSERT INTO decisions(ladder_id, created, kind, run_id, spent_flops, budget_flops, reason, "
      "candidates) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  insert.bindAll(d.ladder_id, d.created, d.kind, d.run_id, d.spent_flops, d.budget_flops, d.reason,
                 d.candidates_json.empty() ? std::string("[]") : d.candidates_json);
  insert.run();
  return queryInt("SELECT last_insert_rowid()");
}

std::vector<DecisionRecord> Database::decisions(int64_t ladder_id) {
  Statement& select = impl_->prepared(
      "SELECT id, ladder_id, created, kind, run_id, spent_flops, budget_flops, reason, "
      "candidates FROM decisions WHERE ladder_id = ?1 ORDER BY id");
  ResetOnExit reset{select};
  select.bind(1, ladder_id);
  std::vector<DecisionRecord> rows;
  while (select.step()) {
    DecisionRecord d;
    d.id = select.columnInt(0);
    d.ladder_id = select.columnInt(1);
    d.created = select.columnDouble(2);
    d.kind = select.columnText(3);
    d.run_id = select.columnOptionalInt(4);
    d.spent_flops = select.columnDouble(5);
    d.budget_flops = select.columnDouble(6);
    d.reason = select.columnText(7);
    d.candidates_json = select.columnText(8);
    rows.push_back(std::move(d));
  }
  return rows;
}

}  // namespace deepladder::storage
