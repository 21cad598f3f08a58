// Scheduler wiring with progress output (see ladder_runner.h).
#include "app/ladder_runner.h"

#include <csignal>
#include <cstdio>
#include <map>
#include <thread>

#include "app/run_execution.h"
#include "core/errors.h"
#include "core/protocol.h"
#include "core/scheduler/backend_factory.h"
#include "core/scheduler/scheduler.h"
#include "core/terminal_progress.h"
#include "storage/database.h"
#include "storage/run_store_sqlite.h"

namespace deepladder::app {

namespace {

scheduler::Scheduler* g_scheduler = nullptr;
void stopScheduler(int) {
  if (g_scheduler) g_scheduler->stop();
}

}  // namespace

int runLadderQueue(storage::Database& db, int64_t ladder_id, const ladder::Resources& resources,
                   const LadderRunOptions& options) {
  storage::SqliteRunStore store(db, ladder_id);
  std::unique_ptr<scheduler::Backend> backend = scheduler::makeBackend(resources);
  const scheduler::SchedulerOptions sched_options = scheduler::schedulerOptionsFor(
      resources, options.worker_path.empty() ? findWorkerProgram() : options.worker_path);

  std::map<int64_t, scheduler::PendingRun> planned;
  double total_flops = 0;
  for (const auto& p : store.pending()) {
    planned[p.id] = p;
    total_flops += p.flops;
  }
  std::fprintf(stderr, "deepladder: %zu run(s) to go, %.3e FLOPs, on %s\n", planned.size(),
               total_flops, backend->describe().c_str());

  MultiProgress progress(stderr);
  std::map<int64_t, ProgressState> states;
  std::map<int64_t, double> done_flops;  // per run, FLOPs trained so far
  double last_redraw = 0;
  scheduler::Scheduler sched(store, *backend, sched_options);
  sched.onEvent([&](const scheduler::SchedulerEvent& e) {
    ProgressState& st = states[e.run_id];
    if (e.kind == scheduler::SchedulerEvent::kLaunched) {
      st = ProgressState{};
      st.label = e.run_name;
      st.total_steps = planned.count(e.run_id) ? planned[e.run_id].total_steps : 0;
      st.elapsed_s = 0;
      if (options.show_progress)
        progress.note("started  " + e.run_name + " on " + e.where + " (" + e.detail + ")");
      return;
    }
    if (e.kind == scheduler::SchedulerEvent::kSettled) {
      if (options.show_progress) {
        progress.remove(e.run_id);
        progress.note("ended    " + e.run_name + ": " + e.detail);
      }
      const std::string status = e.detail.substr(0, e.detail.find(':'));
      if (status != "retry" && options.on_run_ended)
        for (const std::string& line : options.on_run_ended(e.run_id, status)) {
          if (options.show_progress)
            progress.note(line);
          else
            std::fprintf(stderr, "%s\n", line.c_str());
        }
      return;
    }
    std::optional<protocol::Message> m = protocol::decode(e.detail);
    if (!m) return;
    const auto* metric = std::get_if<protocol::Metric>(&*m);
    if (!metric) return;
    st.step = metric->step;
    done_flops[e.run_id] = metric->flops;
    for (const auto& [k, v] : metric->values) {
      if (k == "train/loss") st.train_loss = v;
      if (k == "val/loss") st.val_loss = v;
      if (k == "tokens_per_s") st.tokens_per_s = v;
    }
    st.elapsed_s = metric->wall_s;
    if (!options.show_progress) return;
    progress.update(e.run_id, st, e.time_s);
    if (e.time_s - last_redraw > 0.2) {
      last_redraw = e.time_s;
      double trained = 0;
      for (const auto& [id, f] : done_flops) trained += f;
      const double rate = e.time_s > 0 ? trained / e.time_s : 0;
      const double left = std::max(0.0, total_flops - trained);
      progress.setOverall("ladder: " + formatCount(trained) + " of " + formatCount(total_flops) +
                          " FLOPs, ETA " + formatDuration(rate > 0 ? left / rate : -1));
      progress.redraw();
    }
  });
  g_scheduler = &sched;
  std::signal(SIGINT, stopScheduler);
  std::signal(SIGTERM, stopScheduler);
  sched.run();
  g_scheduler = nullptr;
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);

  int unfinished = 0;
  for (const auto& s : db.listRuns(ladder_id))
    if (s.run.status != "finished") ++unfinished;
  return unfinished;
}

}  // namespace deepladder::app
