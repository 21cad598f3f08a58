// Database members behind the fit cache and the fits' reader: finished runs by the time they
// ended, cached fits by key (see schema.cpp, v3).
#include <chrono>

#include "core/run_status.h"
#include "storage/database.h"
#include "storage/database_impl.h"

namespace deepladder::storage {

std::vector<RunRecord> Database::finishedRuns(int64_t ladder_id) {
  return runsForFits(ladder_id, RunStatus::kFinished);
}

std::vector<RunRecord> Database::stoppedRuns(int64_t ladder_id) {
  return runsForFits(ladder_id, RunStatus::kStopped);
}

std::vector<RunRecord> Database::runsForFits(int64_t ladder_id, RunStatus status) {
  // One statement per status (the status is part of the text, so each has its own cache slot).
  Statement& select = impl_->prepared(
      "SELECT id, arm, size, seed, params, tokens, flops, final_loss, finished, name FROM runs "
      "WHERE ladder_id = ?1 AND status = " +
      sqlStatus(status) + (status == RunStatus::kFinished ? " AND final_loss IS NOT NULL " : " ") +
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
    r.status = status;
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

}  // namespace deepladder::storage
