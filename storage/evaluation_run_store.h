// `deepladder eval` as a queue of one: the scheduler launches the worker in its evaluation mode
// (--eval-passes) on a finished run's newest checkpoint, through the same backend, command line
// and ingester as training, and the ingester stores the metrics it sends (val/loss@passes at
// step K') without touching the run's status, progress or totals.
#pragma once

#include <optional>
#include <string>

#include "core/scheduler/run_store.h"
#include "storage/database.h"

namespace deepladder::storage {

class EvaluationRunStore : public scheduler::RunStore {
 public:
  EvaluationRunStore(Database& db, const RunRecord& run, std::string passes);

  std::vector<scheduler::PendingRun> pending() override;
  void markLaunched(int64_t id, const std::string& where, int64_t attempt) override;
  std::unique_ptr<scheduler::RunSink> sink(int64_t id) override;
  void settle(int64_t id, RunStatus status, const std::string& message) override;
  bool cancelRequested(int64_t id) override { return false; }

  // How the evaluation ended (status as the scheduler settled it: finished, failed, ...), once
  // it has.
  struct Outcome {
    RunStatus status = RunStatus::kFailed;
    std::string message;
  };
  const std::optional<Outcome>& outcome() const { return outcome_; }

 private:
  Database& db_;
  scheduler::PendingRun run_;
  bool launched_ = false;
  std::optional<Outcome> outcome_;
};

}  // namespace deepladder::storage
