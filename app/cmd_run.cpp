// `deepladder run LADDER.toml --db runs.db [--target C]`: plan, queue and run a whole ladder,
// printing the projected multiplier of every arm at the target after each finished run;
// `run LADDER --adaptive --budget FLOPS [--until-width W]`: spend a budget one suggested run at a
// time; and `deepladder resume --db runs.db`: pick up queued and interrupted runs after a
// scheduler died, and single runs (`deepladder train`) whose process was stopped or killed
// (`--retry ID` first queues a failed or cancelled run again, as the workbench's Retry does).
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/adaptive_ladder.h"
#include "app/command_registry.h"
#include "app/curve_inputs.h"
#include "app/fit_inputs.h"
#include "app/ladder_halving.h"
#include "app/ladder_runner.h"
#include "app/live_ladder.h"
#include "app/run_id_option.h"
#include "core/errors.h"
#include "core/ladder/ladder_spec.h"
#include "core/ladder/sweep.h"
#include "core/run_config.h"
#include "core/run_status.h"
#include "core/scheduler/backend_factory.h"
#include "core/scheduler/device_memory.h"
#include "core/scheduler/scheduler_lock.h"
#include "fitting/curve_prediction.h"
#include "storage/database.h"
#include "storage/ladder_queue.h"
#include "storage/queue_execution.h"
#include "storage/result_points.h"
#include "storage/run_control.h"
#include "storage/run_store_sqlite.h"
#include "trainers/data/ladder_data.h"
#include "trainers/data/run_data_check.h"

namespace deepladder::app {
namespace {

namespace fs = std::filesystem;

struct RunOptions {
  std::string ladder_path;
  std::string db_path = "runs.db";
  std::string workdir;
  std::string worker;
  std::string ladder;            // resume: only this ladder
  std::vector<int64_t> stopped;  // resume: reopen these runs sweep halving stopped first
  bool quiet = false;
  double target = 0;  // live projection at this compute (0: the largest of the default --at)
  int bootstrap = kLiveBootstrap;  // live projection's resamples
  bool adaptive = false;
  double budget = 0;              // --adaptive: planned FLOPs the ladder may spend
  double until_width = 0;         // --adaptive: stop once every interval is narrower
  std::uint64_t seed = 20240520;  // --adaptive: suggestions' seed
  int64_t threads = -1;           // resume: CPU threads per worker (-1: as queued)
  std::vector<int64_t> retry;     // resume: failed or cancelled runs to queue again first
};

// The threads a resumed single run gets: --threads, else the threads it was started with
// (`train --threads` stored them in its config; 0 = every core).
int64_t singleRunThreads(const storage::RunRecord& run, int64_t threads_option) {
  if (threads_option >= 0) return threads_option;
  try {
    return runConfigFromJson(nlohmann::json::parse(run.config_json)).train.threads;
  } catch (const std::exception&) {
    return 0;
  }
}

// --retry: each run must be one that ended without a result (failed or cancelled); it is queued
// again and resumes from its last checkpoint with the others. Checked before any is changed.
void queueRetries(storage::Database& db, const std::vector<int64_t>& ids,
                  const std::string& db_path) {
  for (const int64_t id : ids) {
    const std::optional<storage::RunRecord> run = db.run(id);
    if (!run) throw UserError("--retry: run " + std::to_string(id) + " is not in " + db_path);
    if (!isRetryable(run->status))
      throw UserError("--retry: run " + std::to_string(id) + " is " + toString(run->status) +
                      "; only a failed or cancelled run is retried (queued and interrupted runs "
                      "resume without --retry)");
  }
  for (const int64_t id : ids)
    if (storage::retryRun(db, id))
      std::fprintf(stderr, "deepladder: run %lld queued again\n", (long long)id);
}

// The live projection (and, with --adaptive, the decisions) after every run that ends. A squaring
// ladder has no multiplier to project: no hooks (its numbers: `deepladder squaring eval --ladder`).
struct LiveHooks {
  std::unique_ptr<LiveLadder> live;
  std::unique_ptr<AdaptiveLadder> adaptive;

  // Never throws: the ladder's runs go on whatever happens to the projection or a decision.
  // `status`: how the run ended; nullopt before any run (the projection of what is there).
  std::vector<std::string> runEnded(std::optional<RunStatus> status) {
    std::vector<std::string> lines;
    if (!live) return lines;
    try {
      if (status == RunStatus::kFinished || !last_seen) {
        last = live->onRunFinished();
        last_seen = true;
        if (status == RunStatus::kFinished) {
          for (const auto& score : live->lastScores())
            lines.push_back("prediction: " + fitting::liveScoreLine(score));
          lines.push_back("projection: " + fitting::projectionLine(last));
          // Until the measured projection is complete: one with the running runs' predicted
          // final losses in it (marked), so a full projection shows up before every rung ends.
          if (!first_complete && !completeProjection(last, compared_arms) && predicted) {
            const auto with = predictedProjection();
            if (with.second > 0) {
              lines.push_back("projection (with " + std::to_string(with.second) +
                              " predicted final losses of running runs): " +
                              fitting::projectionLine(with.first));
              if (completeProjection(with.first, compared_arms)) {
                first_complete = true;
                char line[200];
                std::snprintf(line, sizeof line,
                              "projection: first complete projection (every arm projected, %d "
                              "of its losses predicted) after %d finished runs, %.0f s into the "
                              "ladder",
                              with.second, last.runs, secondsSince(started));
                lines.push_back(line);
              }
            }
          }
          if (!first_complete && completeProjection(last, compared_arms)) {
            first_complete = true;
            char line[160];
            std::snprintf(line, sizeof line,
                          "projection: first complete projection (every arm projected) after %d "
                          "finished runs, %.0f s into the ladder",
                          last.runs, secondsSince(started));
            lines.push_back(line);
          }
        }
      }
    } catch (const std::exception& e) {
      lines.push_back(std::string("projection: not updated (") + e.what() + ")");
    }
    try {
      if (adaptive && !adaptive->stopped())
        for (auto& line : adaptive->fillSlots(last)) lines.push_back(std::move(line));
    } catch (const std::exception& e) {
      lines.push_back(std::string("adaptive: no decision this time (") + e.what() + ")");
    }
    return lines;
  }
  fitting::ProjectionSnapshot last;
  bool last_seen = false;
  bool first_complete = false;  // the first complete projection was announced
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

  size_t compared_arms = 1;  // the ladder's arms but the baseline
  storage::Database* db = nullptr;
  int64_t ladder_id = 0;
  std::unique_ptr<fitting::LiveProjection> predicted;  // no cache: its inputs are predictions

  // The finished runs and, for every running run with a curve prediction
  // (fitting/curve_prediction.h), its predicted final loss at its planned compute; how many of
  // the latter went in.
  std::pair<fitting::ProjectionSnapshot, int> predictedProjection() {
    ResultsTable table = storage::ladderResults(*db, ladder_id, "predicted");
    const LadderCurves curves = readLadderCurves(*db, ladder_id);
    int added = 0;
    for (const auto& p :
         fitting::predictFinalLosses(curves.curves, fitting::defaultCurveLawOptions(),
                                     /*calibrate=*/false)) {
      const storage::RunRecord& r = curves.runs.at(p.run_id);
      if (!p.loss || r.status != RunStatus::kRunning) continue;
      RunPoint point;
      point.arm = r.arm;
      point.size = r.size;
      point.seed = r.seed;
      point.run_id = r.id;
      point.compute_flops = r.plan.flops;
      point.val_loss = *p.loss;
      if (r.plan.params > 0) point.params = double(r.plan.params);
      point.sweep = ladder::sweepLabelOfRunName(r.name, r.arm, r.size, r.seed);
      table.points.push_back(std::move(point));
      ++added;
    }
    if (added == 0) return {{}, 0};
    return {predicted->refresh(table), added};
  }
  // Every arm compared with the baseline has a projected multiplier.
  static bool completeProjection(const fitting::ProjectionSnapshot& s, size_t arms) {
    if (s.arms.empty() || s.arms.size() < arms) return false;
    for (const auto& a : s.arms)
      if (!std::isfinite(a.multiplier)) return false;
    return true;
  }
  static double secondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
};

LiveHooks makeLiveHooks(storage::Database& db, int64_t ladder_id, const ladder::LadderSpec& spec,
                        const std::string& ladder_dir, const RunOptions& options) {
  LiveHooks hooks;
  if (spec.task == "squaring") return hooks;
  fitting::FrontierOptions fit = fitting::defaultFrontierOptions();
  fit.bootstrap = options.bootstrap;
  const double target = options.target > 0 ? options.target : defaultTarget(fit);
  hooks.live = std::make_unique<LiveLadder>(db, ladder_id, spec.name, fit, target);
  hooks.compared_arms = spec.arms.size() > 1 ? spec.arms.size() - 1 : 1;
  hooks.db = &db;
  hooks.ladder_id = ladder_id;
  hooks.predicted =
      std::make_unique<fitting::LiveProjection>(nullptr, spec.name + " (predicted)", fit, target);
  if (options.adaptive) {
    AdaptiveOptions a;
    a.budget_flops = options.budget;
    a.until_width = options.until_width;
    a.suggest.target = target;
    a.suggest.seed = options.seed;
    const int slots = static_cast<int>(scheduler::makeBackend(spec.resources)->slots().size());
    hooks.adaptive = std::make_unique<AdaptiveLadder>(db, ladder_id, ladder_dir, slots, a);
  }
  return hooks;
}

void printLadderStatus(storage::Database& db, int64_t ladder_id) {
  std::map<std::string, int> counts;
  for (const auto& s : db.listRuns(ladder_id)) counts[toString(s.run.status)]++;
  std::string line;
  for (const auto& [status, n] : counts)
    line += (line.empty() ? "" : ", ") + std::to_string(n) + " " + status;
  std::printf("ladder %lld: %s\n", (long long)ladder_id, line.c_str());
}

int runLadder(const RunOptions& options) {
  if (options.adaptive && !(options.budget > 0))
    throw UserError("--adaptive needs --budget FLOPS (the planned FLOPs the ladder may spend)");
  if (!options.adaptive && (options.budget > 0 || options.until_width > 0))
    throw UserError("--budget and --until-width apply to --adaptive runs; add --adaptive");
  ladder::LadderSpec spec = ladder::loadLadder(options.ladder_path);
  for (const std::string& warning : spec.warnings)
    std::fprintf(stderr, "deepladder: warning: %s\n", warning.c_str());
  if (options.adaptive && spec.task == "squaring")
    throw UserError(options.ladder_path +
                    ": --adaptive spends a budget on narrowing the compute multipliers of a "
                    "language-model ladder; a squaring ladder has none. Run it without --adaptive");
  scheduler::planForLocalDevices(spec);  // the micro-batch that fits this machine's devices
  std::vector<data::RunDataUse> uses;    // data checked before anything is queued
  for (const auto& run : spec.runs)
    uses.push_back({&run.config, options.ladder_path + " (" + run.name + ")"});
  data::checkRunData(uses);
  data::requireDataBudgets(data::ladderDataBudgets(spec), options.ladder_path);
  auto db = storage::Database::open(options.db_path);
  scheduler::SchedulerLock lock(options.db_path);
  storage::markOrphanedRunsInterrupted(*db, std::nullopt);
  const fs::path root = options.workdir.empty()
                            ? fs::path(storage::defaultWorkRoot(options.db_path))
                            : fs::absolute(options.workdir);
  const storage::EnqueueResult queued =
      storage::enqueueLadder(*db, spec, root.string(), /*queue_grid=*/!options.adaptive);
  if (queued.changed_spec)
    std::fprintf(stderr,
                 "deepladder: ladder \"%s\" changed since it was last run (spec hash now %s): it "
                 "is a new ladder; the old one's runs stay in the database\n",
                 spec.name.c_str(), spec.hash.c_str());
  if (queued.new_ladder && options.adaptive)
    std::fprintf(stderr,
                 "deepladder: ladder \"%s\": adaptive, %.3g FLOPs to spend; runs are queued one "
                 "decision at a time\n",
                 spec.name.c_str(), options.budget);
  else if (queued.new_ladder)
    std::fprintf(stderr, "deepladder: ladder \"%s\": %d runs queued\n", spec.name.c_str(),
                 queued.runs_added);
  else
    std::fprintf(stderr,
                 "deepladder: ladder \"%s\" is already in %s: %d finished run(s) kept, %d failed "
                 "run(s) queued again\n",
                 spec.name.c_str(), options.db_path.c_str(), queued.runs_finished,
                 queued.runs_requeued);
  LiveHooks hooks = makeLiveHooks(*db, queued.ladder_id, spec,
                                  storage::ladderWorkDir(spec, root.string()), options);
  for (const auto& line : hooks.runEnded(std::nullopt)) std::fprintf(stderr, "%s\n", line.c_str());
  LadderRunOptions run_options{options.db_path, options.worker, !options.quiet, {}, {}};
  run_options.on_run_ended = [&hooks](int64_t, RunStatus status) { return hooks.runEnded(status); };
  std::unique_ptr<LadderHalving> halving;
  if (spec.sweep_stop.halving && spec.task != "squaring") {
    halving = std::make_unique<LadderHalving>(*db, queued.ladder_id, spec.sweep_stop);
    run_options.on_progress = [&halving](int64_t run_id, int64_t step) {
      return halving->onProgress(run_id, step);
    };
  }
  const int unfinished = runLadderQueue(*db, queued.ladder_id, spec.resources, run_options);
  printLadderStatus(*db, queued.ladder_id);
  if (hooks.adaptive && hooks.adaptive->stopped())
    std::fprintf(stderr, "deepladder: adaptive ladder stopped: %s\n",
                 hooks.adaptive->stopReason().c_str());
  return unfinished == 0 ? 0 : 1;
}

// The sweep halving of a stored ladder ([sweep] stop of the spec it was queued with), so that
// `resume` keeps halving what `run` halved; nullopt without one (or for a serial-task ladder).
// A stored spec that no longer parses resumes without halving, and says so.
std::optional<ladder::SweepStop> storedSweepStop(storage::Database& db, int64_t ladder_id) {
  const std::optional<storage::LadderRecord> record = db.ladder(ladder_id);
  if (!record || record->task == "squaring") return std::nullopt;
  try {
    const ladder::LadderSpec spec = ladder::parseLadder(record->spec, record->name + " (stored)");
    if (spec.sweep_stop.halving) return spec.sweep_stop;
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "deepladder: ladder %s: its stored spec does not parse (%s); it resumes without "
                 "sweep halving\n",
                 record->name.c_str(), e.what());
  }
  return std::nullopt;
}

int resumeLadders(const RunOptions& options) {
  if (!fs::exists(options.db_path))
    throw UserError(options.db_path + ": no such database. Pass --db");
  auto db = storage::Database::open(options.db_path);
  scheduler::SchedulerLock lock(options.db_path);
  for (const int64_t id : options.stopped) {
    const auto run = db->run(id);
    if (!run)
      throw UserError("--stopped " + std::to_string(id) + ": no such run in " + options.db_path);
    if (!storage::reopenStoppedRun(*db, id, double(std::time(nullptr))))
      throw UserError("--stopped " + std::to_string(id) + ": run " + run->name + " is " +
                      toString(run->status) +
                      ", not stopped by sweep halving. See `deepladder status`");
    std::fprintf(stderr,
                 "deepladder: run %lld (%s) reopened; it resumes from its last checkpoint\n",
                 (long long)id, run->name.c_str());
  }
  const int orphans = storage::markOrphanedRunsInterrupted(*db, std::nullopt);
  if (orphans > 0)
    std::fprintf(stderr,
                 "deepladder: %d run(s) were left running by a scheduler that stopped; "
                 "they resume from their last checkpoints\n",
                 orphans);
  queueRetries(*db, options.retry, options.db_path);
  std::optional<int64_t> only;
  if (!options.ladder.empty()) {
    only = db->findLadder(options.ladder);
    if (!only) throw UserError("ladder \"" + options.ladder + "\" is not in " + options.db_path);
  }
  const std::vector<int64_t> ladders = storage::laddersToResume(*db, only);
  const std::vector<int64_t> singles =
      only ? std::vector<int64_t>{} : storage::singleRunsToResume(*db);
  if (ladders.empty() && singles.empty()) {
    std::printf("nothing to resume in %s\n", options.db_path.c_str());
    return 0;
  }
  int unfinished = 0;
  for (const int64_t ladder_id : ladders) {
    // The resources the ladder was queued with (stored typed: no TOML is read again).
    ladder::Resources resources = storage::storedResources(*db, ladder_id);
    if (options.threads >= 0) resources.threads_per_slot = options.threads;
    LadderRunOptions run_options{options.db_path, options.worker, !options.quiet, {}, {}};
    // A ladder queued with stop = "halving" goes on halving its sweep when it is resumed.
    std::unique_ptr<LadderHalving> halving;
    if (const auto stop = storedSweepStop(*db, ladder_id)) {
      halving = std::make_unique<LadderHalving>(*db, ladder_id, *stop);
      run_options.on_progress = [&halving](int64_t run_id, int64_t step) {
        return halving->onProgress(run_id, step);
      };
    }
    unfinished += runLadderQueue(*db, ladder_id, resources, run_options);
    printLadderStatus(*db, ladder_id);
  }
  // Single runs (`deepladder train`) continue from their checkpoints, one at a time, on a
  // local slot of every core (their device is in their config).
  for (const int64_t run_id : singles) {
    ladder::Resources resources;
    resources.slots = 1;
    resources.retries = 0;
    if (const auto run = db->run(run_id))
      resources.threads_per_slot = singleRunThreads(*run, options.threads);
    std::fprintf(stderr, "deepladder: resuming run %lld (single run)\n", (long long)run_id);
    bool stopped = false;
    try {
      stopped = runSingleRunQueue(
          *db, run_id, resources,
          LadderRunOptions{options.db_path, options.worker, !options.quiet, {}, {}});
    } catch (const UserError& e) {  // another process runs it (it holds the run's owner lock)
      std::fprintf(stderr, "deepladder: run %lld: %s\n", (long long)run_id, e.what());
    }
    const auto run = db->run(run_id);
    std::printf("run %lld: %s\n", (long long)run_id, run ? toString(run->status) : "missing");
    if (!run || run->status != RunStatus::kFinished) ++unfinished;
    if (stopped) break;
  }
  return unfinished == 0 ? 0 : 1;
}

CommandRegistrar reg_run("run", 8, [](CLI::App& cli) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "run", "Plan, queue and run a ladder (arms x sizes x seeds) on local slots or Slurm");
  cmd->add_option("ladder", options->ladder_path, "Ladder spec (TOML)")->required();
  cmd->add_option("--db", options->db_path, "SQLite database (created if absent)")
      ->capture_default_str();
  cmd->add_option("--workdir", options->workdir,
                  "Work directory (default: deepladder-work beside the database)");
  cmd->add_option("--worker", options->worker, "Path of deepladder-worker");
  cmd->add_flag("--quiet", options->quiet, "No progress lines");
  cmd->add_option("--target", options->target,
                  "Compute the live projection is made at (default " +
                      formatComputeList({fitting::kDefaultTarget}) +
                      ", the largest --at of `fit`)");
  cmd->add_option("--bootstrap", options->bootstrap,
                  "Bootstrap resamples of the live projection's intervals (each redraws the "
                  "runs' losses around the fit from its residuals)")
      ->capture_default_str();
  cmd->add_flag("--adaptive", options->adaptive,
                "Spend --budget one run at a time, always on the run expected to narrow the "
                "target multiplier's interval most per FLOP (see `deepladder suggest`); first "
                "the rungs each arm needs, then the cheapest extra seeds until the seed scatter "
                "is measured");
  cmd->add_option("--budget", options->budget,
                  "--adaptive: planned training FLOPs the ladder may spend in all");
  cmd->add_option("--until-width", options->until_width,
                  "--adaptive: stop once every arm's interval at --target is narrower than this "
                  "(in multiplier units)");
  cmd->add_option("--seed", options->seed, "--adaptive: seed of the suggestions")
      ->capture_default_str();
  cmd->callback([options] { commandExitCode() = runLadder(*options); });
});

CommandRegistrar reg_resume("resume", 9, [](CLI::App& cli) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "resume",
      "Continue queued and interrupted runs (after the scheduler itself was stopped), and single "
      "runs whose `deepladder train` was stopped");
  cmd->add_option("--db", options->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--ladder", options->ladder, "Only this ladder (name or hash)");
  cmd->add_option("--retry", options->retry,
                  "Queue these failed or cancelled runs again first (ids, as `status` lists "
                  "them); they resume from their last checkpoints")
      ->delimiter(',')
      ->check(runIdCheck());
  cmd->add_option("--threads", options->threads,
                  "CPU threads per worker (default: as queued; 0 = all)")
      ->check(CLI::Range(int64_t(0), int64_t(4096)));
  cmd->add_option("--stopped", options->stopped,
                  "Reopen these runs (ids) that sweep halving stopped, then resume them to their "
                  "end from their last checkpoints");
  cmd->add_option("--worker", options->worker, "Path of deepladder-worker");
  cmd->add_flag("--quiet", options->quiet, "No progress lines");
  cmd->callback([options] { commandExitCode() = resumeLadders(*options); });
});

}  // namespace
}  // namespace deepladder::app
