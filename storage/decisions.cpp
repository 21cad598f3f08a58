// Database members behind the adaptive ladders' decision log: one row per decision (run bought,
// stopped, ...), by ladder (see schema.cpp, v3).
#include "storage/database.h"
#include "storage/database_impl.h"

namespace deepladder::storage {

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
  select.bind(1, ladder_id);
  return collectRows(select, [](const Statement& s) {
    DecisionRecord d;
    d.id = s.columnInt(0);
    d.ladder_id = s.columnInt(1);
    d.created = s.columnDouble(2);
    d.kind = s.columnText(3);
    d.run_id = s.columnOptionalInt(4);
    d.spent_flops = s.columnDouble(5);
    d.budget_flops = s.columnDouble(6);
    d.reason = s.columnText(7);
    d.candidates_json = s.columnText(8);
    return d;
  });
}

}  // namespace deepladder::storage
