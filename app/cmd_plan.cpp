// `deepladder plan LADDER.toml [--json]`: the expanded grid, one row per run (with the tokens it
// reads against what its training split holds), and the totals. Refuses, exit 2, a ladder whose
// runs would read their split more than data.max_epochs times.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "app/command_registry.h"
#include "core/ladder/ladder_spec.h"
#include "core/safe_text.h"
#include "core/terminal_progress.h"
#include "trainers/data/ladder_data.h"

namespace deepladder::app {
namespace {

struct PlanOptions {
  std::string ladder_path;
  bool json = false;
};

// "12.6B/9.90B" (tokens read / tokens the split holds), "1.48M/?" when the split is not there.
std::string dataColumn(const data::RunDataBudget& b) {
  return formatCount(double(b.budget.tokens_needed)) + "/" +
         (b.known ? formatCount(double(b.budget.tokens_available)) : std::string("?"));
}

int runPlan(const PlanOptions& options) {
  const ladder::LadderSpec spec = ladder::loadLadder(options.ladder_path);
  // Tokens each run reads against its training split; a run that would repeat data beyond
  // data.max_epochs is refused before anything is printed.
  const std::vector<data::RunDataBudget> budgets = data::ladderDataBudgets(spec);
  data::requireDataBudgets(budgets, options.ladder_path);
  if (options.json) {
    for (size_t i = 0; i < spec.runs.size(); ++i) {
      const auto& run = spec.runs[i];
      const data::RunDataBudget& data = budgets[i];
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
          {"est_seconds", run.est_seconds}};
      row["data_tokens_needed"] = data.budget.tokens_needed;
      row["data_tokens_available"] =
          data.known ? nlohmann::json(data.budget.tokens_available) : nlohmann::json(nullptr);
      row["data_epochs"] =
          data.known ? nlohmann::json(data.budget.epochs()) : nlohmann::json(nullptr);
      std::printf("%s\n", dumpJson(row).c_str());
    }
    return 0;
  }
  std::printf("ladder \"%s\" (%s): %zu arms x %zu sizes x %zu seeds = %zu runs, backend %s\n",
              spec.name.c_str(), spec.hash.c_str(), spec.arms.size(), spec.sizes.size(),
              spec.seeds.size(), spec.runs.size(), spec.resources.backend.c_str());
  std::printf("%-28s %6s %7s %6s %10s %8s %10s %10s %10s %9s %15s\n", "run", "exec", "d_model",
              "heads", "params", "steps", "tokens", "FLOPs/tok", "FLOPs", "est time",
              "data need/have");
  double total_flops = 0, total_seconds = 0;
  int64_t total_tokens = 0;
  for (size_t i = 0; i < spec.runs.size(); ++i) {
    const auto& run = spec.runs[i];
    const std::string depth = run.crossover_step >= 0
                                  ? std::to_string(run.executed_depth) + ">" +
                                        std::to_string(run.executed_depth_after_growth)
                                  : std::to_string(run.executed_depth);
    std::printf("%-28s %6s %7lld %6lld %10s %8lld %10s %10s %10.3e %9s %15s\n", run.name.c_str(),
                depth.c_str(), (long long)run.config.model.d_model,
                (long long)run.config.model.n_head, formatCount(double(run.params)).c_str(),
                (long long)run.config.train.steps, formatCount(double(run.tokens)).c_str(),
                formatCount(run.flops_per_token).c_str(), run.flops,
                formatDuration(run.est_seconds).c_str(), dataColumn(budgets[i]).c_str());
    total_flops += run.flops;
    total_tokens += run.tokens;
    total_seconds += run.est_seconds * static_cast<double>(run.config.train.ranks);
  }
  std::printf("total: %s tokens, %.3e FLOPs, %s of compute at %.2e FLOP/s per slot\n",
              formatCount(double(total_tokens)).c_str(), total_flops,
              formatDuration(total_seconds).c_str(), spec.resources.throughput_flops);
  for (size_t i = 0; i < budgets.size(); ++i) {
    if (budgets[i].known) continue;  // one note for the first split that is not there
    std::printf("data: %s: not checked (%s)\n", spec.runs[i].name.c_str(),
                budgets[i].source.c_str());
    break;
  }
  return 0;
}

CommandRegistrar reg("plan", 5, [](CLI::App& cli) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* cmd = cli.add_subcommand(
      "plan", "Expand a ladder file into its runs: params, steps, tokens, FLOPs, estimated time");
  cmd->add_option("ladder", options->ladder_path, "Ladder spec (TOML)")->required();
  cmd->add_flag("--json", options->json, "One JSON object per run instead of the table");
  cmd->callback([options] { commandExitCode() = runPlan(*options); });
});

}  // namespace
}  // namespace deepladder::app
