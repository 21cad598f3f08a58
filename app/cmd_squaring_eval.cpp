// `deepladder squaring eval RUN_ID --db runs.db [--step S]`: prints a squaring run's accuracy maps
// from the evals table (the trainer's Eval rows, trainers/squaring/squaring_eval.h): the held-out
// map (squaring/test + squaring/ood_t) and the depth-ladder map (squaring/depth), each cell as
// accuracy/chance with OOD cells marked, Max T on seen and on unseen moduli, and for looped
// models the accuracy against test-time iterations r (tasks "<set>@r=R"). Chance levels come
// from the tier's data regenerated from the run's config (tier, data_seed): deterministic.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "app/command_registry.h"
#include "core/errors.h"
#include "core/run_config.h"
#include "core/squaring/dataset.h"
#include "core/squaring/evaluation.h"
#include "core/squaring/modular_arithmetic.h"
#include "storage/database.h"

namespace deepladder::app {
namespace {

namespace sq = ::deepladder::squaring;

struct SquaringEvalOptions {
  int64_t run_id = 0;
  std::string db_path = "runs.db";
  int64_t step = -1;  // -1: the latest step with evals
};

using CellKey = std::pair<int, int64_t>;  // (bits, T)

// Examples of a set grouped by cell, so a cell's chance level can be recomputed.
std::map<CellKey, std::vector<sq::Example>> byCell(const std::vector<sq::Example>& examples) {
  std::map<CellKey, std::vector<sq::Example>> cells;
  for (const auto& e : examples) cells[{sq::bitLength(e.n), e.t}].push_back(e);
  return cells;
}

// Adds the (correct, total) counts of `rows` to `map`, marking the first `correct` examples of
// each cell correct (exact-match counts and chance levels do not depend on which ones).
void fillMap(sq::AccuracyMap& map, const std::vector<storage::EvalRow>& rows,
             const std::map<CellKey, std::vector<sq::Example>>& cells) {
  for (const auto& row : rows) {
    const auto it = cells.find({static_cast<int>(row.n_bits), row.T});
    if (it == cells.end() || static_cast<int64_t>(it->second.size()) != row.total) {
      std::printf(
          "  (cell bits %lld T %lld: %lld/%lld, no matching regenerated data for its "
          "chance level)\n",
          (long long)row.n_bits, (long long)row.T, (long long)row.correct, (long long)row.total);
      continue;
    }
    for (int64_t i = 0; i < row.total; ++i)
      map.add(it->second[static_cast<size_t>(i)], i < row.correct);
  }
}

int runSquaringEval(const SquaringEvalOptions& options) {
  if (access(options.db_path.c_str(), F_OK) != 0)
    throw UserError(options.db_path + ": no such database. Pass --db");
  auto db = storage::Database::open(options.db_path, /*read_only=*/true);
  const auto run = db->run(options.run_id);
  if (!run)
    throw UserError("run " + std::to_string(options.run_id) + " is not in " + options.db_path +
                    ". See 'deepladder status' for run ids");
  const RunConfig config = runConfigFromJson(nlohmann::json::parse(run->config_json));
  if (config.task != Task::squaring)
    throw UserError("run " + std::to_string(options.run_id) + " is a \"" + enumName(config.task) +
                    "\" run; 'squaring eval' reads runs with task = \"squaring\"");
  const auto rows = db->evals(options.run_id);
  if (rows.empty())
    throw UserError("run " + std::to_string(options.run_id) +
                    " has no evals yet. They appear every train.eval_every steps");

  // Rows of the chosen step, by task.
  int64_t step = options.step;
  if (step < 0)
    for (const auto& r : rows) step = std::max(step, r.step);
  std::map<std::string, std::vector<storage::EvalRow>> by_task;
  for (const auto& r : rows)
    if (r.step == step) by_task[r.task].push_back(r);
  if (by_task.empty())
    throw UserError("run " + std::to_string(options.run_id) + " has no evals at step " +
                    std::to_string(step) + ". Leave out --step for the latest");

  const sq::TierPreset& tier = sq::tierPreset(config.squaring.tier);
  const sq::TierDataset data =
      sq::generateTierDataset(tier, static_cast<uint64_t>(config.squaring.data_seed));
  const auto test_cells = byCell(data.test), ood_cells = byCell(data.ood_t);
  auto depth_cells = byCell(data.depth_seen);
  for (auto& [key, examples] : byCell(data.depth_ood_n)) depth_cells[key] = examples;

  std::printf("run %lld (%s), tier %s, layout %s, data_seed %lld, step %lld\n",
              (long long)options.run_id, config.name.c_str(), tier.name.c_str(),
              enumName(config.squaring.layout).c_str(), (long long)config.squaring.data_seed,
              (long long)step);

  sq::AccuracyMap held_out(tier);
  fillMap(held_out, by_task["squaring/test"], test_cells);
  fillMap(held_out, by_task["squaring/ood_t"], ood_cells);
  std::printf("\nheld-out prompts (squaring/test, squaring/ood_t):\n%s", held_out.format().c_str());

  sq::AccuracyMap depth(tier);
  fillMap(depth, by_task["squaring/depth"], depth_cells);
  std::printf("\ndepth ladder, every prompt of each cell (squaring/depth):\n%s",
              depth.format().c_str());
  std::printf("Max T: seen moduli %lld, unseen moduli %lld\n",
              (long long)depth.maxT(tier.depth_ladder, true),
              (long long)depth.maxT(tier.depth_ladder, false));

  // Accuracy against test-time iterations: rows r, columns (set, T) over all moduli sizes.
  std::map<int64_t, std::map<std::pair<std::string, int64_t>, std::pair<int64_t, int64_t>>> sweep;
  std::set<std::pair<std::string, int64_t>> columns;
  for (const auto& [task, task_rows] : by_task) {
    const auto at = task.find("@r=");
    if (at == std::string::npos) continue;
    const int64_t r = std::stoll(task.substr(at + 3));
    const std::string set = task.substr(task.find('/') + 1, at - task.find('/') - 1);
    for (const auto& row : task_rows) {
      auto& cell = sweep[r][{set, row.T}];
      cell.first += row.correct;
      cell.second += row.total;
      columns.insert({set, row.T});
    }
  }
  if (!sweep.empty()) {
    std::printf("\naccuracy against test-time iterations r (exact match; set:T):\n%6s", "r");
    for (const auto& c : columns) {
      const std::string name = c.first + ":" + std::to_string(c.second);
      std::printf(" %10s", name.c_str());
    }
    std::printf("\n");
    for (const auto& [r, cells] : sweep) {
      std::printf("%6lld", (long long)r);
      for (const auto& c : columns) {
        const auto it = cells.find(c);
        if (it == cells.end() || it->second.second == 0)
          std::printf(" %10s", "-");
        else
          std::printf(" %10.3f", double(it->second.first) / double(it->second.second));
      }
      std::printf("\n");
    }
  }
  return 0;
}

CommandRegistrar reg("squaring-eval", 75, [](CLI::App& cli) {
  CLI::App* squaring = cli.get_subcommand("squaring");
  auto options = std::make_shared<SquaringEvalOptions>();
  CLI::App* cmd = squaring->add_subcommand(
      "eval",
      "Print a squaring run's accuracy maps (accuracy/chance), Max T and the "
      "accuracy-vs-iterations table from the evals table");
  cmd->add_option("run", options->run_id, "Run id (see 'deepladder status')")->required();
  cmd->add_option("--db", options->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--step", options->step, "Step of the evals (default: the latest)");
  cmd->callback([options] { commandExitCode() = runSquaringEval(*options); });
});

}  // namespace
}  // namespace deepladder::app
