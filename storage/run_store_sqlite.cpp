// SQLite-backed scheduler queue (see run_store_sqlite.h).
#include "storage/run_store_sqlite.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "core/protocol.h"
#include "core/run_config.h"
#include "storage/ingester.h"
#include "storage/worker_log_replay.h"

namespace deepladder::storage {

namespace {

double unixNow() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

class IngestingSink : public scheduler::RunSink {
 public:
  IngestingSink(Database& db, int64_t run_id) : ingester_(db, run_id) {}
  void line(const std::string& text) override {
    std::optional<protocol::Message> message = protocol::decode(text);
    if (!message) return;
    ingester_.apply(*message);
    if (const auto* e = std::get_if<protocol::Error>(&*message)) last_error_ = e->message;
    if (const auto* m = std::get_if<protocol::Metric>(&*message)) last_step_ = m->step;
  }
  void flush() override { ingester_.flush(); }
  std::optional<std::string> doneStatus() const override {
    if (auto done = ingester_.done()) return done->status;
    return std::nullopt;
  }
  std::string doneMessage() const override {
    if (auto done = ingester_.done()) return done->message;
    return {};
  }
  std::string lastError() const override { return last_error_; }
  int64_t lastStep() const override { return last_step_; }

 private:
  Ingester ingester_;
  std::string last_error_;
  int64_t last_step_ = 0;
};

}  // namespace

std::vector<scheduler::PendingRun> SqliteRunStore::pending() {
  std::vector<scheduler::PendingRun> out;
  for (const RunSummary& summary : db_.listRuns(ladder_id_)) {
    const RunRecord& r = summary.run;
    if (r.status != "queued" && r.status != "interrupted") continue;
    scheduler::PendingRun p;
    p.id = r.id;
    p.name = r.name;
    p.workdir = r.workdir;
    p.attempt = r.attempt;
    p.total_steps = r.plan.steps;
    p.ranks = std::max<int64_t>(1, r.plan.ranks);
    p.gpus_per_rank = r.plan.gpus_per_rank;
    p.flops = r.plan.flops;  // both growth phases
    out.push_back(p);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.flops > b.flops; });
  return out;
}

void SqliteRunStore::markLaunched(int64_t id, const std::string& where, int64_t attempt) {
  std::optional<RunRecord> run = db_.run(id);
  if (!run) return;
  // A resumed run: first store what the dead attempt sent but nobody wrote down.
  if (attempt > 1 && run->status != "running")
    replayWorkerLog(db_, id, run->workdir + "/" + protocol::kWorkerLogName);
  run = db_.run(id);
  run->status = "running";
  run->device = where;
  if (where.rfind("slurm:", 0) == 0) run->job_id = where.substr(6);
  run->attempt = attempt;
  run->heartbeat = unixNow();
  if (run->started == 0) run->started = run->heartbeat;
  db_.updateRun(*run);
}

std::unique_ptr<scheduler::RunSink> SqliteRunStore::sink(int64_t id) {
  return std::make_unique<IngestingSink>(db_, id);
}

void SqliteRunStore::settle(int64_t id, const std::string& status, const std::string& message) {
  db_.setRunStatus(id, status, status == "finished" ? "" : message);
}

bool SqliteRunStore::cancelRequested(int64_t id) {
  std::optional<RunRecord> run = db_.run(id);
  return run && run->status == "cancelled";
}

int markOrphanedRunsInterrupted(Database& db, std::optional<int64_t> ladder_id) {
  int changed = 0;
  for (const RunSummary& summary : db.listRuns(ladder_id)) {
    if (summary.run.status != "running") continue;
    db.setRunStatus(summary.run.id, "interrupted",
                    "its scheduler stopped while it ran; resumed from the last checkpoint");
    ++changed;
  }
  return changed;
}

}  // namespace deepladder::storage
