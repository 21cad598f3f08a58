// `deepladder watch --db runs.db --ladder NAME [--target C] [--interval S] [--once]`: follows a
// ladder another process (or Slurm) is running: after every finished run it prints the projected
// multiplier of every arm at the target with its interval, as `run` does (and, before it, how the
// finished run compared with the loss the fit before it predicted), every new curve prediction of
// a running run (pred/final_loss, stored by sweep halving) and every halving decision, and ends
// when the ladder has no queued, interrupted or running run left. Wiring only
// (app/live_ladder.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <thread>

#include "app/command_registry.h"
#include "app/fit_inputs.h"
#include "app/live_ladder.h"
#include "core/errors.h"
#include "core/metric_keys.h"
#include "core/run_status.h"
#include "storage/database.h"

namespace deepladder::app {
namespace {

struct WatchOptions {
  std::string db_path = "runs.db";
  std::string ladder;
  double target = 0;
  double interval_s = 2.0;
  bool once = false;
  int bootstrap = kLiveBootstrap;
};

std::string clock() {
  const std::time_t t = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", std::localtime(&t));
  return buf;
}

int runWatch(const WatchOptions& o) {
  if (access(o.db_path.c_str(), F_OK) != 0)
    throw UserError(o.db_path + ": no such database. Check --db");
  if (o.ladder.empty()) throw UserError("watch: give --ladder NAME");
  if (!(o.interval_s > 0)) throw UserError("--interval: must be positive seconds");
  auto db = storage::Database::open(o.db_path);
  const auto id = db->findLadder(o.ladder);
  if (!id) throw UserError("no ladder \"" + o.ladder + "\" in " + o.db_path);
  if (db->ladder(*id) && db->ladder(*id)->task == "squaring")
    throw UserError("ladder \"" + o.ladder +
                    "\" is a squaring ladder: it has no compute multiplier to project. Its "
                    "numbers: deepladder squaring eval --ladder " +
                    o.ladder);
  if (o.bootstrap < 0) throw UserError("--bootstrap: must be >= 0");
  fitting::FrontierOptions fit = fitting::defaultFrontierOptions();
  fit.bootstrap = o.bootstrap;
  LiveLadder live(*db, *id, o.ladder, fit, o.target > 0 ? o.target : defaultTarget(fit));
  const std::string active_sql =
      "SELECT count(*) FROM runs WHERE ladder_id = " + std::to_string(*id) + " AND status IN " +
      sqlStatusList(kUnfinishedRunStatuses);
  int printed_for = -1;
  std::map<int64_t, int64_t> prediction_step;  // run -> step of the last prediction printed
  size_t decisions_printed = 0;
  for (;;) {
    for (const storage::RunSummary& r : db->listRuns(*id)) {
      if (r.run.status != RunStatus::kRunning) continue;
      const auto loss = db->readMetric(r.run.id, metric_keys::kPredictedFinalLoss);
      const auto lo = db->readMetric(r.run.id, metric_keys::kPredictedFinalLossLo);
      const auto hi = db->readMetric(r.run.id, metric_keys::kPredictedFinalLossHi);
      if (loss.empty() || lo.empty() || hi.empty()) continue;
      auto [it, inserted] = prediction_step.try_emplace(r.run.id, -1);
      if (it->second == loss.back().step) continue;
      it->second = loss.back().step;
      std::printf("%s curve: %s predicted final val loss %.4f [%.4f, %.4f] at step %lld\n",
                  clock().c_str(), r.run.name.c_str(), loss.back().value, lo.back().value,
                  hi.back().value, (long long)loss.back().step);
    }
    const auto decisions = db->decisions(*id);
    for (; decisions_printed < decisions.size(); ++decisions_printed)
      if (decisions[decisions_printed].kind.rfind("halving", 0) == 0)
        std::printf("%s %s: %s\n", clock().c_str(), decisions[decisions_printed].kind.c_str(),
                    decisions[decisions_printed].reason.c_str());
    const int finished = static_cast<int>(db->finishedRuns(*id).size());
    if (finished != printed_for) {
      const fitting::ProjectionSnapshot s = live.onRunFinished();
      for (const auto& score : live.lastScores())
        std::printf("%s prediction: %s\n", clock().c_str(), fitting::liveScoreLine(score).c_str());
      std::printf("%s projection: %s\n", clock().c_str(), fitting::projectionLine(s).c_str());
      std::fflush(stdout);
      printed_for = finished;
    }
    if (o.once || db->queryInt(active_sql) == 0) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(o.interval_s));
  }
  return 0;
}

CommandRegistrar register_watch("watch", 11, [](CLI::App& cli) {
  auto o = std::make_shared<WatchOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "watch",
      "Follow a ladder run by another process or on Slurm: after every finished run, the "
      "projected multiplier of every arm at --target with its interval; ends when no run is "
      "left to run");
  cmd->add_option("--db", o->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--ladder", o->ladder, "Ladder name or hash")->required();
  cmd->add_option(
      "--target", o->target,
      "Compute of the projection (default " + formatComputeList({fitting::kDefaultTarget}) + ")");
  cmd->add_option("--interval", o->interval_s, "Seconds between looks at the database")
      ->capture_default_str();
  cmd->add_option("--bootstrap", o->bootstrap,
                  "Bootstrap resamples of the intervals (each redraws the runs' losses around "
                  "the fit from its residuals)")
      ->capture_default_str();
  cmd->add_flag("--once", o->once, "Print the projection now and end");
  cmd->callback([o] { commandExitCode() = runWatch(*o); });
});

}  // namespace
}  // namespace deepladder::app
