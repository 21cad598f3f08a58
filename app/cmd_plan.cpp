// `deepladder plan LADDER.toml [--json] [--db FILE]`: the expanded grid, one row per run, and the
// totals. Each run's peak device memory and micro-batch come from the memory plan
// (core/ladder/memory_plan.h), checked against resources.device_memory_gb or this machine's
// devices; a run that cannot fit is refused (exit 2) with what would make it fit. Each run's
// tokens are shown against what its training split holds; a ladder whose runs would read their
// split more than data.max_epochs times is refused (exit 2). With --db, runs of a shape that has
// run there are timed by its measured tokens/s instead of the assumption.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <variant>

#include "app/command_registry.h"
#include "core/errors.h"
#include "core/ladder/ladder_spec.h"
#include "core/ladder/memory_plan.h"
#include "core/safe_text.h"
#include "core/scheduler/device_memory.h"
#include "core/terminal_progress.h"
#include "storage/database.h"
#include "storage/measured_throughput.h"
#include "trainers/data/ladder_data.h"
#include "trainers/data/run_data_check.h"

namespace deepladder::app {
namespace {

struct PlanOptions {
  std::string ladder_path;
  std::string db_path;
  bool json = false;
};

// "12.6B/9.90B" (tokens read / tokens the split holds), "1.48M/?" when the split is not there.
std::string dataColumn(const data::RunDataBudget& b) {
  return formatCount(double(b.budget.tokens_needed)) + "/" +
         (b.known ? formatCount(double(b.budget.tokens_available)) : std::string("?"));
}

nlohmann::json jsonRow(const ladder::LadderSpec& spec, const ladder::PlannedRun& run,
                       const data::RunDataBudget& data) {
  nlohmann::json row = {
      {"ladder", spec.name},
      {"run", run.name},
      {"arm", run.arm},
      {"size", run.size},
      {"seed", run.seed},
      {"depth", run.depth},
      {"executed_depth", run.executed_depth},
      {"n_layer", run.config.model.n_layer},
      {"d_model", run.config.model.d_model},
      {"params", run.params},
      {"steps", run.config.train.steps},
      {"crossover_step",
       run.crossover_step >= 0 ? nlohmann::json(run.crossover_step) : nlohmann::json(nullptr)},
      {"depth_after_growth", run.executed_depth_after_growth},
      {"tokens", run.tokens},
      {"flops_per_token", run.flops_per_token},
      {"flops", run.flops},
      {"ranks", run.config.train.ranks},
      {"micro_batch", run.micro_batch},
      {"peak_memory_gb", run.peak_memory_gb},
      {"peak_phase", run.memory.peak_phase},
      {"est_seconds", run.est_seconds},
      {"time_measured", run.time_measured}};
  // The run's sweep point: {"train.lr_mult": 0.5}, {} without a sweep.
  nlohmann::json point = nlohmann::json::object();
  for (const auto& [key, value] : run.sweep_point)
    std::visit([&, key = key](const auto& v) { point[key] = v; }, value);
  row["sweep"] = point;
  row["sweep_label"] = run.sweep_label;
  row["data_tokens_needed"] = data.budget.tokens_needed;
  row["data_tokens_available"] =
      data.known ? nlohmann::json(data.budget.tokens_available) : nlohmann::json(nullptr);
  row["data_epochs"] = data.known ? nlohmann::json(data.budget.epochs()) : nlohmann::json(nullptr);
  const std::string init_from = data::initFromProblem(run.config);
  row["init_from_problem"] =
      init_from.empty() ? nlohmann::json(nullptr) : nlohmann::json(init_from);
  return row;
}

// A train.init_from file that is not there: `run` refuses the ladder until it is; plan (which
// may run where the files are not) says so on stderr, once per file.
void warnMissingInitFrom(const ladder::LadderSpec& spec) {
  std::map<std::string, std::pair<std::string, int>> init_from_problems;  // path: first run, count
  for (const auto& run : spec.runs)
    if (!data::initFromProblem(run.config).empty()) {
      auto& entry = init_from_problems[run.config.train.init_from];
      if (entry.second++ == 0) entry.first = data::initFromProblem(run.config) + " (" + run.name;
    }
  for (const auto& [path, entry] : init_from_problems)
    std::fprintf(
        stderr, "deepladder: warning: %s%s); `run` refuses this ladder until it is there\n",
        entry.first.c_str(),
        entry.second > 1 ? (" and " + std::to_string(entry.second - 1) + " more run(s)").c_str()
                         : "");
}

// The sweep of every arm and what it costs: a point runs the whole rung again.
void printSweepCosts(const ladder::LadderSpec& spec) {
  std::map<std::string, double> arm_flops, arm_flops_first_point;
  for (const auto& run : spec.runs) {
    arm_flops[run.arm] += run.flops;
    const auto& sweep = spec.sweeps.at(run.arm);
    if (sweep.empty() || run.sweep_label == ladder::sweepPoints(sweep).front().label)
      arm_flops_first_point[run.arm] += run.flops;
  }
  for (const std::string& arm : spec.arms) {
    const auto& sweep = spec.sweeps.at(arm);
    if (sweep.empty()) continue;
    const double ratio =
        arm_flops_first_point[arm] > 0 ? arm_flops[arm] / arm_flops_first_point[arm] : 0;
    std::printf("sweep of %s: %s (%zu points; %.2fx the FLOPs of one point, %.3e FLOPs)\n",
                arm.c_str(), ladder::describeSweep(sweep).c_str(),
                ladder::sweepPoints(sweep).size(), ratio, arm_flops[arm]);
  }
}

int runPlan(const PlanOptions& options) {
  ladder::LadderSpec spec = ladder::loadLadder(options.ladder_path);
  for (const std::string& warning : spec.warnings)
    std::fprintf(stderr, "deepladder: warning: %s\n", warning.c_str());
  // Tokens each run reads against its training split; a run that would repeat data beyond
  // data.max_epochs is refused before anything is printed.
  const std::vector<data::RunDataBudget> budgets = data::ladderDataBudgets(spec);
  data::requireDataBudgets(budgets, options.ladder_path);
  warnMissingInitFrom(spec);
  scheduler::planForLocalDevices(spec);
  if (!options.db_path.empty()) {
    if (access(options.db_path.c_str(), F_OK) != 0)
      throw UserError(options.db_path + ": no such database. Check --db");
    auto db = storage::Database::open(options.db_path, /*read_only=*/true);
    ladder::applyMeasuredThroughput(spec, storage::measuredTokensPerSecond(*db));
  }
  if (options.json) {
    for (size_t i = 0; i < spec.runs.size(); ++i)
      std::printf("%s\n", dumpJson(jsonRow(spec, spec.runs[i], budgets[i])).c_str());
    return 0;
  }
  const bool swept = std::any_of(spec.sweeps.begin(), spec.sweeps.end(),
                                 [](const auto& s) { return !s.second.empty(); });
  std::printf("ladder \"%s\" (%s): %zu arms x %zu sizes x %zu seeds%s = %zu runs, backend %s\n",
              spec.name.c_str(), spec.hash.c_str(), spec.arms.size(), spec.sizes.size(),
              spec.seeds.size(), swept ? " x sweep points" : "", spec.runs.size(),
              spec.resources.backend.c_str());
  printSweepCosts(spec);
  size_t name_width = 28;
  for (const auto& run : spec.runs) name_width = std::max(name_width, run.name.size());
  std::printf("%-*s %6s %7s %6s %10s %8s %10s %10s %10s %5s %8s %9s %15s\n", int(name_width), "run",
              "exec", "d_model", "heads", "params", "steps", "tokens", "FLOPs/tok", "FLOPs", "mb",
              "peak GB", "est time", "data need/have");
  double total_flops = 0, total_seconds = 0;
  int64_t total_tokens = 0, measured = 0;
  for (size_t i = 0; i < spec.runs.size(); ++i) {
    const auto& run = spec.runs[i];
    const std::string depth = run.crossover_step >= 0
                                  ? std::to_string(run.executed_depth) + ">" +
                                        std::to_string(run.executed_depth_after_growth)
                                  : std::to_string(run.executed_depth);
    std::printf("%-*s %6s %7lld %6lld %10s %8lld %10s %10s %10.3e %5lld %8.2f %9s%s %15s\n",
                int(name_width), run.name.c_str(), depth.c_str(),
                (long long)run.config.model.d_model, (long long)run.config.model.n_head,
                formatCount(double(run.params)).c_str(), (long long)run.config.train.steps,
                formatCount(double(run.tokens)).c_str(), formatCount(run.flops_per_token).c_str(),
                run.flops, (long long)run.micro_batch, run.peak_memory_gb,
                formatDuration(run.est_seconds).c_str(), run.time_measured ? "*" : " ",
                dataColumn(budgets[i]).c_str());
    total_flops += run.flops;
    total_tokens += run.tokens;
    total_seconds += run.est_seconds * static_cast<double>(run.config.train.ranks);  // slot-time
    measured += run.time_measured ? 1 : 0;
  }
  const ladder::Resources& r = spec.resources;
  std::string rate;
  if (r.throughput_flops > 0) {
    rate = formatCount(r.throughput_flops) + "FLOP/s per slot (throughput_flops)";
  } else if (r.peak_flops > 0) {
    char text[128];
    std::snprintf(text, sizeof text, "%.0f%% MFU of %sFLOP/s (bf16 peak) per device", 100 * r.mfu,
                  formatCount(r.peak_flops).c_str());
    rate = text;
  } else {
    rate = formatCount(ladder::kDefaultThroughputFlops) + "FLOP/s per slot (default)";
  }
  std::printf("total: %s tokens, %.3e FLOPs, %s of device time (%.1f device-hours) at %s\n",
              formatCount(double(total_tokens)).c_str(), total_flops,
              formatDuration(total_seconds).c_str(), total_seconds / 3600.0, rate.c_str());
  if (measured > 0)
    std::printf("* %lld run(s) timed by the measured tokens/s of runs of the same shape in %s\n",
                (long long)measured, options.db_path.c_str());
  const ladder::DeviceBudget budget = scheduler::deviceBudgetFor(r);
  if (budget.bytes > 0)
    std::printf("memory: every run fits %s (%.0f%% usable); mb = micro-batch per forward\n",
                budget.source.c_str(), 100 * ladder::kUsableFraction);
  else
    std::printf("memory: device size unknown (set resources.device_memory_gb to check the runs)\n");
  for (size_t i = 0; i < budgets.size(); ++i) {
    if (budgets[i].known) continue;  // one note for the first split that is not there
    std::printf("data: %s: not checked (%s)\n", spec.runs[i].name.c_str(),
                budgets[i].source.c_str());
    break;
  }
  return 0;
}

CommandRegistrar register_plan("plan", 5, [](CLI::App& cli) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "plan",
      "Expand a ladder file into its runs: params, steps, tokens, FLOPs, micro-batch, peak "
      "memory and estimated time");
  cmd->add_option("ladder", options->ladder_path, "Ladder spec (TOML)")->required();
  cmd->add_flag("--json", options->json, "One JSON object per run instead of the table");
  cmd->add_option("--db", options->db_path,
                  "Time runs by the measured tokens/s of runs of the same shape in this database");
  cmd->callback([options] { commandExitCode() = runPlan(*options); });
});

}  // namespace
}  // namespace deepladder::app
