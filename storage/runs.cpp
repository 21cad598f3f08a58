// Ladders and runs: inserting, reading, listing with last losses, and the status/progress
// updates the scheduler and the ingester make.
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "core/metric_keys.h"
#include "core/names.h"
#include "core/run_status.h"
#include "storage/database.h"
#include "storage/database_impl.h"
#include "storage/plan_columns.h"

namespace deepladder::storage {

namespace fs = std::filesystem;

namespace {

// The columns a RunRecord holds, in the order readRun reads them: the v1 columns, then the plan.
const std::string kRunColumns =
    "r.id, r.ladder_id, r.name, r.arm, r.size, r.seed, r.config, r.config_hash, r.status, "
    "r.attempt, r.device, r.job_id, r.heartbeat, r.params, r.flops_per_token, r.step, r.tokens, "
    "r.flops, r.final_loss, r.error, r.workdir, r.started, r.finished, " +
    planColumnList("r.");
constexpr int kPlanFirstColumn = 23;
constexpr int kRunColumnCount = kPlanFirstColumn + kPlanColumnCount;
constexpr int kPlanFirstParameter = 23;  // after the 22 v1 columns bound by bindRun
constexpr int kRunParameterCount = kPlanFirstParameter + kPlanColumnCount - 1;

// "?1, ?2, ..., ?n"
std::string placeholders(int n) {
  std::string out;
  for (int i = 1; i <= n; ++i) out += (i > 1 ? ", ?" : "?") + std::to_string(i);
  return out;
}

// Run directories under the database's folder are stored relative to it, so a project folder that
// is moved (or mounted elsewhere) resumes its runs in place; others, and the absolute paths older
// versions stored, are kept as they are.
fs::path databaseFolder(const std::string& db_path) {
  if (db_path.empty() || db_path == ":memory:") return {};
  return fs::absolute(db_path).parent_path().lexically_normal();
}

std::string storedWorkdir(const fs::path& db_folder, const std::string& workdir) {
  if (db_folder.empty() || workdir.empty()) return workdir;
  const fs::path absolute = fs::absolute(workdir).lexically_normal();
  if (!isInsideDirectory(db_folder.string(), absolute.string())) return workdir;
  return absolute.lexically_relative(db_folder).string();
}

std::string resolvedWorkdir(const fs::path& db_folder, const std::string& stored) {
  if (db_folder.empty() || stored.empty() || fs::path(stored).is_absolute()) return stored;
  return (db_folder / stored).lexically_normal().string();
}

RunRecord readRun(const Statement& s, const fs::path& db_folder) {
  RunRecord r;
  r.id = s.columnInt(0);
  r.ladder_id = s.columnOptionalInt(1);
  r.name = s.columnText(2);
  r.arm = s.columnText(3);
  r.size = s.columnText(4);
  r.seed = s.columnInt(5);
  r.config_json = s.columnText(6);
  r.config_hash = s.columnText(7);
  // The CHECK constraint admits only RunStatus words; a newer version's word reads as failed.
  r.status = parseRunStatus(s.columnText(8)).value_or(RunStatus::kFailed);
  r.attempt = s.columnInt(9);
  r.device = s.columnText(10);
  r.job_id = s.columnText(11);
  r.heartbeat = s.columnDouble(12);
  r.params = s.columnInt(13);
  r.flops_per_token = s.columnDouble(14);
  r.step = s.columnInt(15);
  r.tokens = s.columnInt(16);
  r.flops = s.columnDouble(17);
  r.final_loss = s.columnOptionalDouble(18);
  r.error = s.columnText(19);
  r.workdir = resolvedWorkdir(db_folder, s.columnText(20));
  r.started = s.columnDouble(21);
  r.finished = s.columnDouble(22);
  r.plan = readPlan(s, kPlanFirstColumn);
  return r;
}

// Binds every mutable column of `r` to ?1..?kRunParameterCount in the order of kRunColumns minus
// id.
void bindRun(Statement& s, const RunRecord& r, const fs::path& db_folder) {
  s.bind(1, r.ladder_id);
  s.bindText(2, r.name);
  s.bindText(3, r.arm);
  s.bindText(4, r.size);
  s.bind(5, r.seed);
  s.bindText(6, r.config_json.empty() ? std::string("{}") : r.config_json);
  s.bindText(7, r.config_hash);
  s.bindText(8, toString(r.status));
  s.bind(9, r.attempt);
  s.bindText(10, r.device);
  s.bindText(11, r.job_id);
  s.bind(12, r.heartbeat);
  s.bind(13, r.params);
  s.bind(14, r.flops_per_token);
  s.bind(15, r.step);
  s.bind(16, r.tokens);
  s.bind(17, r.flops);
  s.bind(18, r.final_loss);  // NaN binds as NULL
  s.bindText(19, r.error);
  s.bindText(20, storedWorkdir(db_folder, r.workdir));
  s.bind(21, r.started);
  s.bind(22, r.finished);
  bindPlan(s, kPlanFirstParameter, r.plan);
}

}  // namespace

// ---- ladders --------------------------------------------------------------------------------
int64_t Database::upsertLadder(const std::string& name, const std::string& spec,
                               const std::string& hash, const std::string& task,
                               const std::string& resources_json) {
  Statement& insert = impl_->prepared(
      "INSERT INTO ladders(name, spec, hash, task, resources) VALUES (?1, ?2, ?3, ?4, ?5) "
      "ON CONFLICT(hash) DO NOTHING");
  insert.bindText(1, name);
  insert.bindText(2, spec);
  insert.bindText(3, hash);
  insert.bindText(4, task);
  insert.bindText(5, resources_json);
  insert.run();
  Statement& find = impl_->prepared("SELECT id FROM ladders WHERE hash = ?1");
  ResetOnExit reset{find};
  find.bindText(1, hash);
  if (!find.step()) throw std::runtime_error("ladder with hash " + hash + " vanished");
  return find.columnInt(0);
}

std::optional<int64_t> Database::findLadder(const std::string& name_or_hash) {
  Statement& find = impl_->prepared(
      "SELECT id FROM ladders WHERE hash = ?1 UNION ALL "
      "SELECT id FROM (SELECT id FROM ladders WHERE name = ?1 ORDER BY id DESC LIMIT 1)");
  ResetOnExit reset{find};
  find.bindText(1, name_or_hash);
  if (!find.step()) return std::nullopt;
  return find.columnInt(0);
}

std::vector<LadderRecord> Database::laddersNamed(const std::string& name) {
  std::vector<int64_t> ids;
  {
    Statement& find = impl_->prepared("SELECT id FROM ladders WHERE name = ?1 ORDER BY id");
    ResetOnExit reset{find};
    find.bindText(1, name);
    while (find.step()) ids.push_back(find.columnInt(0));
  }
  std::vector<LadderRecord> out;
  for (const int64_t id : ids)
    if (auto record = ladder(id)) out.push_back(std::move(*record));
  return out;
}

std::optional<LadderRecord> Database::ladder(int64_t ladder_id) {
  Statement& find =
      impl_->prepared("SELECT id, name, spec, hash, task, resources FROM ladders WHERE id = ?1");
  ResetOnExit reset{find};
  find.bind(1, ladder_id);
  if (!find.step()) return std::nullopt;
  LadderRecord l;
  l.id = find.columnInt(0);
  l.name = find.columnText(1);
  l.spec = find.columnText(2);
  l.hash = find.columnText(3);
  l.task = find.columnText(4);
  l.resources_json = find.columnText(5);
  return l;
}

std::string Database::ladderSpec(int64_t ladder_id) {
  Statement& find = impl_->prepared("SELECT spec FROM ladders WHERE id = ?1");
  ResetOnExit reset{find};
  find.bind(1, ladder_id);
  if (!find.step()) return {};
  return find.columnText(0);
}

// ---- runs -----------------------------------------------------------------------------------
int64_t Database::insertRun(const RunRecord& run) {
  Statement& insert = impl_->prepared(
      std::string("INSERT INTO runs(ladder_id, name, arm, size, seed, config, config_hash, status, "
                  "attempt, device, job_id, heartbeat, params, flops_per_token, step, tokens, "
                  "flops, final_loss, error, workdir, started, finished, ") +
      kPlanColumns + ") VALUES (" + placeholders(kRunParameterCount) + ")");
  bindRun(insert, run, databaseFolder(path()));
  insert.run();
  return queryInt("SELECT last_insert_rowid()");
}

std::optional<RunRecord> Database::run(int64_t id) {
  Statement& select = impl_->prepared("SELECT " + kRunColumns + " FROM runs r WHERE r.id = ?1");
  ResetOnExit reset{select};
  select.bind(1, id);
  if (!select.step()) return std::nullopt;
  return readRun(select, databaseFolder(path()));
}

std::vector<RunSummary> Database::listRuns(std::optional<int64_t> ladder_id) {
  // The last loss comes from the end of the (run_id, key_id, step) primary key: one seek each.
  static const std::string sql = [] {
    auto last = [](const char* column, const char* key) {
      return std::string("(SELECT ") + column +
             " FROM metrics m WHERE m.run_id = r.id AND m.key_id = "
             "(SELECT id FROM metric_keys WHERE name = '" +
             key + "') ORDER BY m.step DESC LIMIT 1)";
    };
    std::string columns = kRunColumns;
    for (const char* key : {metric_keys::kTrainLoss, metric_keys::kValLoss})
      for (const char* column : {"1", "m.value IS NULL", "m.value"})
        columns += ", " + last(column, key);
    return "SELECT " + columns +
           ", coalesce(l.name, '') FROM runs r LEFT JOIN ladders l ON l.id = r.ladder_id "
           "WHERE ?1 IS NULL OR r.ladder_id = ?1 ORDER BY r.id";
  }();
  Statement& select = impl_->prepared(sql);
  ResetOnExit reset{select};
  select.bind(1, ladder_id);
  std::vector<RunSummary> runs;
  const fs::path folder = databaseFolder(path());
  while (select.step()) {
    RunSummary summary;
    summary.run = readRun(select, folder);
    const int c = kRunColumnCount;
    auto last = [&](int first) -> std::optional<double> {
      if (select.columnIsNull(first)) return std::nullopt;  // no point logged
      if (select.columnInt(first + 1) != 0) return std::nan("");
      return select.columnDouble(first + 2);
    };
    summary.last_train_loss = last(c);
    summary.last_val_loss = last(c + 3);
    summary.ladder_name = select.columnText(c + 6);
    runs.push_back(std::move(summary));
  }
  return runs;
}

void Database::setRunStatus(int64_t id, RunStatus status, const std::string& error) {
  Statement& update = impl_->prepared(
      "UPDATE runs SET status = ?2, error = CASE WHEN ?3 = '' THEN error ELSE ?3 END "
      "WHERE id = ?1");
  update.bindAll(id, std::string(toString(status)), error);
  update.run();
}

void Database::updateRun(const RunRecord& run) {
  Statement& update = impl_->prepared(
      "UPDATE runs SET ladder_id = ?1, name = ?2, arm = ?3, size = ?4, seed = ?5, config = ?6, "
      "config_hash = ?7, status = ?8, attempt = ?9, device = ?10, job_id = ?11, heartbeat = ?12, "
      "params = ?13, flops_per_token = ?14, step = ?15, tokens = ?16, flops = ?17, "
      "final_loss = ?18, error = ?19, workdir = ?20, started = ?21, finished = ?22, " +
      planAssignmentsFrom(kPlanFirstParameter) + " WHERE id = ?" +
      std::to_string(kRunParameterCount + 1));
  bindRun(update, run, databaseFolder(path()));
  update.bind(kRunParameterCount + 1, run.id);
  update.run();
}

void Database::markRunStarted(int64_t id, const std::string& device, int64_t params,
                              double flops_per_token, double now) {
  Statement& update = impl_->prepared(
      "UPDATE runs SET status = " + sqlStatus(RunStatus::kRunning) +
      ", device = ?2, params = ?3, flops_per_token = ?4, "
      "heartbeat = ?5, started = CASE WHEN started = 0 THEN ?5 ELSE started END, finished = 0 "
      "WHERE id = ?1");
  update.bindAll(id, device, params, flops_per_token, now);
  update.run();
}

void Database::updateRunProgress(int64_t id, int64_t step, int64_t tokens, double flops,
                                 double heartbeat) {
  Statement& update = impl_->prepared(
      "UPDATE runs SET step = ?2, tokens = ?3, flops = ?4, heartbeat = ?5 WHERE id = ?1");
  update.bindAll(id, step, tokens, flops, heartbeat);
  update.run();
}

void Database::markRunDone(int64_t id, RunStatus status, std::optional<double> final_loss,
                           int64_t steps, int64_t tokens, double flops, double finished,
                           const std::string& error) {
  Statement& update = impl_->prepared(
      "UPDATE runs SET status = ?2, final_loss = ?3, step = ?4, tokens = ?5, flops = ?6, "
      "finished = ?7, heartbeat = ?7, error = CASE WHEN ?8 <> '' THEN ?8 "
      // A cancellation that came after the run had ended is not the run's error.
      "WHEN status = " +
      sqlStatus(RunStatus::kCancelled) + " AND ?2 <> " + sqlStatus(RunStatus::kCancelled) +
      " THEN '' ELSE error END "
      "WHERE id = ?1");
  update.bindAll(id, std::string(toString(status)), final_loss, steps, tokens, flops, finished,
                 error);
  update.run();
}

void Database::setRunError(int64_t id, const std::string& error) {
  Statement& update = impl_->prepared("UPDATE runs SET error = ?2 WHERE id = ?1");
  update.bindAll(id, error);
  update.run();
}

}  // namespace deepladder::storage
