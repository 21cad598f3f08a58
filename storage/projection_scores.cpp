// Database members behind the live projection's error log (see schema.cpp, v6).
#include "storage/database.h"
#include "storage/database_impl.h"

namespace deepladder::storage {

void Database::saveProjectionScore(const ProjectionScoreRecord& s) {
  Statement& upsert = impl_->prepared(
      "INSERT INTO projection_scores(ladder_id, run_id, created, arm, size, compute, "
      "measured_loss, predicted_loss, lo, hi, rel_error, extrapolation, fitted_runs) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
      "ON CONFLICT(run_id) DO UPDATE SET ladder_id = excluded.ladder_id, "
      "created = excluded.created, arm = excluded.arm, size = excluded.size, "
      "compute = excluded.compute, measured_loss = excluded.measured_loss, "
      "predicted_loss = excluded.predicted_loss, lo = excluded.lo, hi = excluded.hi, "
      "rel_error = excluded.rel_error, extrapolation = excluded.extrapolation, "
      "fitted_runs = excluded.fitted_runs");
  upsert.bindAll(s.ladder_id, s.run_id, s.created, s.arm, s.size, s.compute, s.measured_loss,
                 s.predicted_loss, s.lo, s.hi, s.rel_error, s.extrapolation,
                 static_cast<int64_t>(s.fitted_runs));
  upsert.run();
}

std::vector<ProjectionScoreRecord> Database::projectionScores(int64_t ladder_id) {
  Statement& select = impl_->prepared(
      "SELECT id, ladder_id, run_id, created, arm, size, compute, measured_loss, predicted_loss, "
      "lo, hi, rel_error, extrapolation, fitted_runs FROM projection_scores WHERE ladder_id = ?1 "
      "ORDER BY created, id");
  ResetOnExit reset{select};
  select.bind(1, ladder_id);
  std::vector<ProjectionScoreRecord> rows;
  while (select.step()) {
    ProjectionScoreRecord r;
    r.id = select.columnInt(0);
    r.ladder_id = select.columnInt(1);
    r.run_id = select.columnInt(2);
    r.created = select.columnDouble(3);
    r.arm = select.columnText(4);
    r.size = select.columnText(5);
    r.compute = select.columnDouble(6);
    r.measured_loss = select.columnDouble(7);
    r.predicted_loss = select.columnDouble(8);
    r.lo = select.columnOptionalDouble(9);
    r.hi = select.columnOptionalDouble(10);
    r.rel_error = select.columnDouble(11);
    r.extrapolation = select.columnOptionalDouble(12);
    r.fitted_runs = static_cast<int>(select.columnInt(13));
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace deepladder::storage
