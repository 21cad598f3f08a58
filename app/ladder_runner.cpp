// Running a database queue with progress output (see ladder_runner.h).
#include "app/ladder_runner.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <variant>

#include "core/errors.h"
#include "core/protocol.h"
#include "core/run_dir_lock.h"
#include "core/run_status.h"
#include "core/terminal_progress.h"
#include "core/worker_process.h"
#include "storage/database.h"
#include "storage/run_store_sqlite.h"

namespace deepladder::app {

namespace {

scheduler::Scheduler* g_scheduler = nullptr;
bool g_stopped_by_signal = false;
void stopScheduler(int) {
  g_stopped_by_signal = true;
  if (g_scheduler) g_scheduler->stop();
}

}  // namespace

std::string findWorkerProgram() {
  if (const char* env = std::getenv("DEEPLADDER_WORKER"); env && *env) return env;
  return executableDirectory() + "/deepladder-worker";
}

bool runQueue(storage::QueueExecution& execution, const LadderRunOptions& options) {
  std::map<int64_t, scheduler::PendingRun> planned;
  double total_flops = 0;
  for (const auto& p : execution.store().pending()) {
    planned[p.id] = p;
    total_flops += p.flops;
  }
  if (planned.size() > 1 || options.show_progress)
    std::fprintf(stderr, "deepladder: %zu run(s) to go, %.3e FLOPs, on %s\n", planned.size(),
                 total_flops, execution.backend().describe().c_str());

  MultiProgress progress(stderr);
  std::map<int64_t, ProgressState> states;
  std::map<int64_t, double> done_flops;  // per run, FLOPs trained so far
  double last_redraw = 0;
  scheduler::Scheduler& sched = execution.scheduler();
  sched.onEvent([&](const scheduler::SchedulerEvent& e) {
    ProgressState& st = states[e.run_id];
    if (e.kind == scheduler::SchedulerEvent::kLaunched) {
      st = ProgressState{};
      st.label = e.run_name;
      st.total_steps = planned.count(e.run_id) ? planned[e.run_id].total_steps : 0;
      if (options.show_progress)
        progress.note("started  " + e.run_name + " on " + e.where + " (" + e.detail + ")");
      return;
    }
    if (e.kind == scheduler::SchedulerEvent::kSettled) {
      if (options.show_progress) {
        progress.remove(e.run_id);
        progress.note("ended    " + e.run_name + ": " + e.settledText());
      }
      if (!e.retry() && options.on_run_ended)
        for (const std::string& line : options.on_run_ended(e.run_id, e.status)) {
          if (options.show_progress)
            progress.note(line);
          else
            std::fprintf(stderr, "%s\n", line.c_str());
        }
      return;
    }
    // A checkpoint that could not be used (torn, another config) is said on the console too,
    // not only in the events table: the run repeats the steps since the older one.
    if (e.kind == scheduler::SchedulerEvent::kLine && e.message)
      if (const auto* event = std::get_if<protocol::Event>(&*e.message);
          event && event->name == "checkpoint_skipped") {
        const std::string line = "warning: " + e.run_name + ": " + event->detail;
        if (options.show_progress)
          progress.note(line);
        else
          std::fprintf(stderr, "%s\n", line.c_str());
      }
    const std::optional<storage::RunProgressUpdate> update = storage::progressUpdate(e);
    if (!update) return;
    st.step = update->step;
    st.elapsed_s = update->wall_s;
    if (update->train_loss) st.train_loss = *update->train_loss;
    if (update->val_loss) st.val_loss = *update->val_loss;
    if (update->tokens_per_s) st.tokens_per_s = *update->tokens_per_s;
    done_flops[e.run_id] = update->flops;
    if (options.on_progress)
      for (const std::string& line : options.on_progress(e.run_id, update->step)) {
        if (options.show_progress)
          progress.note(line);
        else
          std::fprintf(stderr, "%s\n", line.c_str());
      }
    if (!options.show_progress) return;
    progress.update(e.run_id, st, e.time_s);
    if (e.time_s - last_redraw > 0.2) {
      last_redraw = e.time_s;
      double trained = 0;
      for (const auto& [id, f] : done_flops) trained += f;
      const double rate = e.time_s > 0 ? trained / e.time_s : 0;
      const double left = std::max(0.0, total_flops - trained);
      if (planned.size() > 1)
        progress.setOverall("ladder: " + formatCount(trained) + " of " + formatCount(total_flops) +
                            " FLOPs, ETA " + formatDuration(rate > 0 ? left / rate : -1));
      progress.redraw();
    }
  });
  g_scheduler = &sched;
  g_stopped_by_signal = false;
  // A closed terminal (SIGHUP) stops the ladder like Ctrl-C: runs end interrupted, resumable.
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) std::signal(signal, stopScheduler);
  sched.run();
  g_scheduler = nullptr;
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) std::signal(signal, SIG_DFL);
  return g_stopped_by_signal;
}

int runLadderQueue(storage::Database& db, int64_t ladder_id, const ladder::Resources& resources,
                   const LadderRunOptions& options) {
  storage::QueueExecution execution(
      std::make_unique<storage::SqliteRunStore>(db, ladder_id), resources,
      options.worker_path.empty() ? findWorkerProgram() : options.worker_path);
  runQueue(execution, options);
  int unfinished = 0;
  for (const auto& s : db.listRuns(ladder_id))
    // A point sweep halving stopped is settled: its rung went on without it.
    if (s.run.status != RunStatus::kFinished && s.run.status != RunStatus::kStopped) ++unfinished;
  return unfinished;
}

bool runSingleRunQueue(storage::Database& db, int64_t run_id, const ladder::Resources& resources,
                       const LadderRunOptions& options) {
  const std::optional<storage::RunRecord> run = db.run(run_id);
  if (!run) throw UserError("run " + std::to_string(run_id) + " is not in the database");
  storage::restoreRunDirectory(*run);
  const auto owner = RunDirLock::acquire(run->workdir, kOwnerLockName, 0);
  if (!owner)
    throw UserError("run " + std::to_string(run_id) + " is being run by another process (pid " +
                    std::to_string(lockHolder(run->workdir, kOwnerLockName).value_or(-1)) +
                    "); wait for it to end");
  storage::QueueExecution execution(
      std::make_unique<storage::SqliteRunStore>(storage::SqliteRunStore::singleRun(db, run_id)),
      resources, options.worker_path.empty() ? findWorkerProgram() : options.worker_path);
  return runQueue(execution, options);
}

}  // namespace deepladder::app
