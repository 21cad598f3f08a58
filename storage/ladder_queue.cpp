// Ladder -> queued runs (see ladder_queue.h).
#include "storage/ladder_queue.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/ladder/resources_json.h"
#include "core/names.h"
#include "core/run_status.h"
#include "core/safe_file.h"
#include "core/safe_text.h"
#include "core/sha256.h"
#include "storage/work_root.h"

namespace deepladder::storage {

namespace fs = std::filesystem;

std::string defaultWorkRoot(const std::string& db_path) {
  return (fs::absolute(db_path).parent_path() / "deepladder-work").string();
}

std::string ladderWorkDir(const ladder::LadderSpec& spec, const std::string& work_root) {
  const fs::path dir = fs::path(work_root) / (spec.name + "-" + spec.hash.substr(0, 8));
  // A ladder queued before its hash was of its parsed content (schema v7) has its directory
  // named by the hash of its file's bytes: its new runs join the old ones there.
  const fs::path by_bytes =
      fs::path(work_root) /
      (spec.name + "-" + sha256Hex(spec.text.data(), spec.text.size()).substr(0, 8));
  std::error_code ec;
  if (by_bytes != dir && !fs::exists(dir, ec) && fs::is_directory(by_bytes, ec))
    return by_bytes.string();
  return dir.string();
}

namespace {

// The run's directory and config.json, and its queued row.
int64_t insertPlannedRun(Database& db, int64_t ladder_id, const std::string& ladder_dir,
                         const ladder::PlannedRun& planned) {
  const fs::path run_dir = fs::path(ladder_dir) / planned.name;
  requireInsideDirectory(ladder_dir, run_dir.string());
  std::error_code ec;
  fs::create_directories(run_dir, ec);
  if (ec)
    throw UserError(run_dir.string() + ": cannot create the run directory (" + ec.message() + ")");
  requireRealDirectory(run_dir.string(), "the run directory");
  const nlohmann::json config = toJson(planned.config);
  writeFileAtomically((run_dir / "config.json").string(), dumpJson(config, 2) + "\n",
                      "the run config");
  RunRecord run;
  run.ladder_id = ladder_id;
  run.name = planned.name;
  run.arm = planned.arm;
  run.size = planned.size;
  run.seed = planned.seed;
  run.config_json = dumpJson(config);
  run.config_hash = configHash(planned.config);
  run.status = RunStatus::kQueued;
  run.plan = planned;  // the RunPlan part
  run.workdir = run_dir.string();
  return db.insertRun(run);
}

}  // namespace

int64_t enqueueRun(Database& db, int64_t ladder_id, const std::string& ladder_dir,
                   const ladder::PlannedRun& planned) {
  for (const RunSummary& s : db.listRuns(ladder_id))
    if (s.run.name == planned.name && isRetryable(s.run.status)) {
      db.setRunStatus(s.run.id, RunStatus::kQueued, "queued again");
      return s.run.id;
    }
  return insertPlannedRun(db, ladder_id, ladder_dir, planned);
}

EnqueueResult enqueueLadder(Database& db, const ladder::LadderSpec& spec,
                            const std::string& work_root, bool queue_grid) {
  EnqueueResult result;
  std::optional<int64_t> same = db.findLadder(spec.hash);
  if (!same) {
    std::optional<int64_t> by_name = db.findLadder(spec.name);
    result.changed_spec = by_name.has_value();
  }
  const std::string ladder_dir = ladderWorkDir(spec, work_root);
  // Names were checked when the spec was read (core/names.h); this only guards against a bug.
  requireInsideDirectory(work_root, ladder_dir);
  for (const ladder::PlannedRun& planned : spec.runs)
    requireInsideDirectory(ladder_dir, (fs::path(ladder_dir) / planned.name).string());
  claimWorkRoot(db, work_root);  // never another database's runs' directories
  std::error_code ec;
  fs::create_directories(ladder_dir, ec);
  if (ec)
    throw UserError(ladder_dir + ": cannot create the ladder's work directory (" + ec.message() +
                    "). Pass --workdir to a writable place");
  requireRealDirectory(ladder_dir, "the ladder's work directory");

  Transaction transaction(db);
  result.ladder_id = db.upsertLadder(spec.name, spec.text, spec.hash, spec.task,
                                     ladder::resourcesToJson(spec.resources).dump());
  result.new_ladder = !same.has_value();
  if (!result.new_ladder) {
    for (const RunSummary& s : db.listRuns(result.ladder_id)) {
      if (s.run.status == RunStatus::kFinished || s.run.status == RunStatus::kDiverged)
        ++result.runs_finished;
      if (s.run.status == RunStatus::kFailed) {
        db.setRunStatus(s.run.id, RunStatus::kQueued, "queued again by a new 'deepladder run'");
        ++result.runs_requeued;
      }
    }
    transaction.commit();
    return result;
  }
  if (queue_grid)
    for (const ladder::PlannedRun& planned : spec.runs) {
      insertPlannedRun(db, result.ladder_id, ladder_dir, planned);
      ++result.runs_added;
    }
  transaction.commit();
  return result;
}

}  // namespace deepladder::storage
