// SQLite-backed scheduler queue (see run_store_sqlite.h).
#include "storage/run_store_sqlite.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "core/clock_seconds.h"
#include "core/errors.h"
#include "core/ladder/sweep.h"
#include "core/protocol.h"
#include "core/run_config.h"
#include "core/run_status.h"
#include "core/safe_file.h"
#include "core/safe_text.h"
#include "storage/ingester.h"
#include "storage/run_control.h"
#include "storage/worker_log_replay.h"

namespace deepladder::storage {

namespace {

namespace fs = std::filesystem;

class IngestingSink : public scheduler::RunSink {
 public:
  IngestingSink(Database& db, int64_t run_id, IngestMode mode)
      : ingester_(db, run_id, 4096, 0.5, mode) {}
  std::optional<protocol::Message> line(const std::string& text) override {
    std::optional<protocol::Message> message = protocol::decode(text);
    if (!message) return message;
    ingester_.apply(*message);
    if (const auto* e = std::get_if<protocol::Error>(&*message)) last_error_ = e->message;
    if (const auto* m = std::get_if<protocol::Metric>(&*message)) last_step_ = m->step;
    return message;
  }
  void flush() override { ingester_.flush(); }
  std::optional<RunStatus> doneStatus() const override {
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

// The numbers of a sweep label's values, for ordering points ({} for no label; NaN for a choice).
std::vector<double> labelValues(const std::string& label) {
  std::vector<double> values;
  for (const auto& [key, text] : ladder::parseSweepLabel(label))
    values.push_back(ladder::sweepValueNumber(text));
  return values;
}

using RungKey = std::tuple<int64_t, std::string, std::string>;  // ladder, arm, size

RungKey rungOf(const RunRecord& r) {
  return RungKey{r.ladder_id.value_or(-1), r.arm, r.size};
}

// Per (ladder, arm): its openers, smallest (planned FLOPs) first.
std::map<std::pair<int64_t, std::string>, std::vector<const RunRecord*>> openersByArm(
    const std::vector<RunRecord>& runs, const std::set<int64_t>& openers) {
  std::map<std::pair<int64_t, std::string>, std::vector<const RunRecord*>> by_arm;
  for (const RunRecord& r : runs)
    if (openers.count(r.id)) by_arm[{r.ladder_id.value_or(-1), r.arm}].push_back(&r);
  for (auto& [arm, list] : by_arm)
    std::stable_sort(list.begin(), list.end(), [](const RunRecord* a, const RunRecord* b) {
      return a->plan.flops < b->plan.flops;
    });
  return by_arm;
}

// The rungs of each arm's kRungsForCalibration smallest openers.
std::set<RungKey> calibrationRungs(
    const std::map<std::pair<int64_t, std::string>, std::vector<const RunRecord*>>& by_arm) {
  std::set<RungKey> rungs;
  for (const auto& [arm, list] : by_arm)
    for (size_t i = 0; i < list.size() && i < size_t(kRungsForCalibration); ++i)
      rungs.insert(rungOf(*list[i]));
  return rungs;
}

}  // namespace

std::set<int64_t> rungOpeners(const std::vector<RunRecord>& runs) {
  struct Rung {
    std::map<std::string, std::vector<double>> labels;  // label -> its values
    int64_t first_seed = 0;
    bool any = false;
  };
  std::map<RungKey, Rung> rungs;
  std::map<int64_t, std::string> label_of;
  for (const RunRecord& r : runs) {
    const std::string label = ladder::sweepLabelOfRunName(r.name, r.arm, r.size, r.seed);
    label_of[r.id] = label;
    Rung& rung = rungs[rungOf(r)];
    rung.labels[label] = labelValues(label);
    rung.first_seed = rung.any ? std::min(rung.first_seed, r.seed) : r.seed;
    rung.any = true;
  }
  std::map<RungKey, std::string> centre;
  for (const auto& [key, rung] : rungs) {
    std::vector<std::pair<std::vector<double>, std::string>> ordered;
    for (const auto& [label, values] : rung.labels) ordered.emplace_back(values, label);
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
      for (size_t i = 0; i < std::min(a.first.size(), b.first.size()); ++i)
        if (a.first[i] != b.first[i] && !std::isnan(a.first[i]) && !std::isnan(b.first[i]))
          return a.first[i] < b.first[i];
      return false;  // the label order (map order) for the rest
    });
    centre[key] = ordered[(ordered.size() - 1) / 2].second;
  }
  std::set<int64_t> out;
  for (const RunRecord& r : runs) {
    const RungKey key = rungOf(r);
    if (label_of[r.id] == centre[key] && r.seed == rungs[key].first_seed) out.insert(r.id);
  }
  return out;
}

std::map<int64_t, int> openerTiers(const std::vector<RunRecord>& runs,
                                   const std::set<int64_t>& openers) {
  std::map<int64_t, int> tier;
  // A ladder without a sweep or a second seed: every run opens its rung, biggest first.
  if (openers.size() == runs.size()) return tier;
  const auto by_arm = openersByArm(runs, openers);
  for (const auto& [arm, list] : by_arm)
    for (size_t i = 0; i < list.size(); ++i)
      tier[list[i]->id] = i < size_t(kRungsForAProjection) ? kSmallOpeners : kOtherOpeners;
  const RunRecord* biggest = nullptr;
  for (const RunRecord& r : runs)
    if (openers.count(r.id) && (!biggest || r.plan.flops > biggest->plan.flops)) biggest = &r;
  const std::set<RungKey> small_rungs = calibrationRungs(by_arm);
  for (const RunRecord& r : runs)
    if (!openers.count(r.id) && small_rungs.count(rungOf(r))) tier[r.id] = kSmallRungsOtherPoints;
  if (biggest) tier[biggest->id] = kBiggestOpener;
  return tier;
}

std::set<int64_t> calibrationRuns(const std::vector<RunRecord>& runs) {
  const std::set<int64_t> openers = rungOpeners(runs);
  std::set<int64_t> out;
  if (openers.size() == runs.size()) return out;
  const std::set<RungKey> rungs = calibrationRungs(openersByArm(runs, openers));
  for (const RunRecord& r : runs)
    if (rungs.count(rungOf(r))) out.insert(r.id);
  return out;
}

std::unique_ptr<scheduler::RunSink> makeIngestingSink(Database& db, int64_t run_id,
                                                      IngestMode mode) {
  return std::make_unique<IngestingSink>(db, run_id, mode);
}

void restoreRunDirectory(const RunRecord& run) {
  const fs::path dir(run.workdir);
  std::error_code ec;
  if (fs::is_symlink(dir, ec)) return;  // nothing through a link: the launch refuses it
  if (run.workdir.empty() || fs::exists(dir / "config.json", ec)) return;
  fs::create_directories(dir, ec);
  if (ec) return;  // the launch reports it
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(run.config_json);
  } catch (const nlohmann::json::exception&) {
    return;
  }
  try {
    writeFileAtomically((dir / "config.json").string(), dumpJson(config, 2) + "\n",
                        "the run config");
  } catch (const UserError&) {
    return;  // the launch reports the directory
  }
  std::fprintf(stderr,
               "deepladder: run %lld: its directory %s was missing; made again from the "
               "stored config (the run starts from its first step)\n",
               static_cast<long long>(run.id), run.workdir.c_str());
}

std::vector<scheduler::PendingRun> SqliteRunStore::pending() {
  std::vector<scheduler::PendingRun> out;
  std::vector<RunRecord> runs;
  if (run_id_) {
    if (auto run = db_.run(*run_id_)) runs.push_back(*run);
  } else {
    for (const RunSummary& summary : db_.listRuns(ladder_id_)) runs.push_back(summary.run);
  }
  const std::set<int64_t> first = rungOpeners(runs);
  for (const RunRecord& r : runs) {
    if (!isResumable(r.status)) continue;
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
  // Tiers over every opener, started or not: the biggest stays the biggest as runs start.
  const std::map<int64_t, int> tier = openerTiers(runs, first);
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    const int a_tier = tier.count(a.id) ? tier.at(a.id) : kOtherRuns;
    const int b_tier = tier.count(b.id) ? tier.at(b.id) : kOtherRuns;
    if (a_tier != b_tier) return a_tier < b_tier;
    if (a_tier == kSmallOpeners || a_tier == kSmallRungsOtherPoints) return a.flops < b.flops;
    return a.flops > b.flops;
  });
  return out;
}

void SqliteRunStore::markLaunched(int64_t id, const std::string& where, int64_t attempt) {
  std::optional<RunRecord> run = db_.run(id);
  if (!run) return;
  // A resumed run: first store what the dead attempt sent but nobody wrote down.
  if (attempt > 1 && run->status != RunStatus::kRunning)
    replayWorkerLog(db_, id, run->workdir + "/" + protocol::kWorkerLogName);
  run = db_.run(id);
  restoreRunDirectory(*run);
  run->status = RunStatus::kRunning;
  run->device = where;
  if (where.rfind("slurm:", 0) == 0) run->job_id = where.substr(6);
  run->attempt = attempt;
  run->heartbeat = unixSeconds();
  if (run->started == 0) run->started = run->heartbeat;
  db_.updateRun(*run);
}

std::unique_ptr<scheduler::RunSink> SqliteRunStore::sink(int64_t id) {
  return makeIngestingSink(db_, id, IngestMode::kTraining);
}

void SqliteRunStore::settle(int64_t id, RunStatus status, const std::string& message) {
  db_.setRunStatus(id, status, status == RunStatus::kFinished ? "" : message);
}

bool SqliteRunStore::cancelRequested(int64_t id) {
  std::optional<RunRecord> run = db_.run(id);
  return run && (run->status == RunStatus::kCancelled || run->status == RunStatus::kStopped);
}

std::pair<RunStatus, std::string> SqliteRunStore::cancelledOutcome(int64_t id) {
  std::optional<RunRecord> run = db_.run(id);
  if (run && run->status == RunStatus::kStopped) return {RunStatus::kStopped, run->error};
  return {RunStatus::kCancelled, "cancelled by the user"};
}

int markOrphanedRunsInterrupted(Database& db, std::optional<int64_t> ladder_id) {
  int changed = 0;
  for (const RunSummary& summary : db.listRuns(ladder_id)) {
    if (summary.run.status != RunStatus::kRunning) continue;
    // A single run (`deepladder train`) is not the scheduler's: while its process or its worker
    // holds the run directory, it is alive and stays as it is.
    if (!summary.run.ladder_id && runDirectoryHeld(summary.run)) continue;
    db.setRunStatus(summary.run.id, RunStatus::kInterrupted,
                    summary.run.ladder_id
                        ? "its scheduler stopped while it ran; resumed from the last checkpoint"
                        : "its `deepladder train` stopped while it ran; `deepladder resume` "
                          "continues it from the last checkpoint");
    ++changed;
  }
  return changed;
}

}  // namespace deepladder::storage
