// An evaluation as a queue of one run (see evaluation_run_store.h).
#include "storage/evaluation_run_store.h"

#include "storage/run_store_sqlite.h"

namespace deepladder::storage {

EvaluationRunStore::EvaluationRunStore(Database& db, const RunRecord& run, std::string passes)
    : db_(db) {
  run_.id = run.id;
  run_.name = run.name + " (eval)";
  run_.workdir = run.workdir;
  run_.eval_passes = std::move(passes);
  run_.ranks = 1;
}

std::vector<scheduler::PendingRun> EvaluationRunStore::pending() {
  if (launched_) return {};
  return {run_};
}

void EvaluationRunStore::markLaunched(int64_t, const std::string&, int64_t) {
  launched_ = true;
}

std::unique_ptr<scheduler::RunSink> EvaluationRunStore::sink(int64_t id) {
  return makeIngestingSink(db_, id, IngestMode::kEvaluation);
}

void EvaluationRunStore::settle(int64_t, RunStatus status, const std::string& message) {
  outcome_ = Outcome{status, message};
}

}  // namespace deepladder::storage
