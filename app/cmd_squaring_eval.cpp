// `deepladder squaring eval RUN_ID --db runs.db [--step S]`: prints a squaring run's accuracy maps
// from the evals table (the trainer's Eval rows, trainers/squaring/squaring_eval.h): the held-out
// map (squaring/test + squaring/ood_t) and the depth-ladder map (squaring/depth), each cell as
// accuracy/chance, plus /composition ceiling for a fixed-modulus tier (core/squaring/baselines.h),
// with OOD cells marked; the benchmark's numbers (test exact, OOD exact, score = their mean, Max T
// on seen and on unseen moduli); and for looped models the accuracy against test-time iterations
// r (tasks "<set>@r=R"). Chance levels and ceilings come from the run's data (the files of
// squaring.data_dir, or the tier regenerated from data_seed: core/squaring/run_dataset.h).
// `deepladder squaring eval --ladder NAME` prints a ladder's arms and sizes over their seeds as the
// benchmark reports them (mean score, minimum Max T; storage/squaring_points.h). Every score is
// labelled admissible or not under the benchmark's rules (core/options/admissibility.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/command_registry.h"
#include "app/run_id_option.h"
#include "core/errors.h"
#include "core/options/admissibility.h"
#include "core/run_config.h"
#include "core/squaring/baselines.h"
#include "core/squaring/evaluation.h"
#include "storage/database.h"
#include "storage/squaring_points.h"
#include "storage/squaring_run.h"

namespace deepladder::app {
namespace {

namespace sq = ::deepladder::squaring;

struct SquaringEvalOptions {
  int64_t run_id = -1;
  std::string ladder;  // set: the ladder's table over seeds instead of one run
  std::string db_path = "runs.db";
  int64_t step = -1;  // -1: the latest step with evals
};

// The benchmark's numbers of a ladder's finished runs, each (arm, size) over its seeds: mean
// test and OOD exact and score, minimum Max T.
int printLadderScores(storage::Database& db, const SquaringEvalOptions& options) {
  const auto points = storage::squaringPoints(db, options.db_path, options.ladder);
  std::printf("ladder %s: the benchmark's numbers over seeds (mean exact and score, min Max T)\n",
              options.ladder.c_str());
  std::printf("%-32s %-10s %5s %8s %8s %8s %7s %7s   %-44s %s\n", "arm", "size", "seeds", "test",
              "ood", "score", "max_t", "ood_n", "test chance / ceiling, ood chance / ceiling",
              "admissible");
  bool any_inadmissible = false;
  for (const auto& g : storage::squaringScoresOverSeeds(points)) {
    const storage::SquaringPoint* first = nullptr;
    std::string inadmissible;  // the offending options of the group's runs
    for (const auto& p : points)
      if (p.arm == g.arm && p.size == g.size && p.sweep == g.sweep) {
        if (!first) first = &p;
        if (!p.admissible && inadmissible.find(p.inadmissible_options) == std::string::npos)
          inadmissible += (inadmissible.empty() ? "" : ", ") + p.inadmissible_options;
      }
    any_inadmissible |= !inadmissible.empty();
    char baselines[96];
    std::snprintf(baselines, sizeof baselines, "%.3f / %.3f, %.3f / %.3f", first->test_chance,
                  first->test_ceiling, first->ood_chance, first->ood_ceiling);
    const std::string arm = g.sweep.empty() ? g.arm : g.arm + " " + g.sweep;
    std::printf("%-32s %-10s %5lld %8.3f %8.3f %8.3f %7lld %7lld   %-44s %s\n", arm.c_str(),
                g.size.c_str(), (long long)g.score.seeds, g.score.test_exact, g.score.ood_exact,
                g.score.score, (long long)g.score.max_t, (long long)g.score.max_t_ood_n, baselines,
                inadmissible.empty() ? "yes" : ("no (" + inadmissible + ")").c_str());
  }
  if (any_inadmissible)
    std::printf(
        "admissible no: the options make training targets from the task's algorithm, which the "
        "benchmark's rules forbid; those scores are not comparable with its leaderboard\n");
  return 0;
}

// "chance 0.031, composition ceiling 0.250" (the ceiling only for a fixed-modulus tier).
std::string baselineText(const sq::SetBaselines& b) {
  char text[96];
  if (std::isnan(b.ceiling))
    std::snprintf(text, sizeof text, "chance %.3f", b.chance);
  else
    std::snprintf(text, sizeof text, "chance %.3f, composition ceiling %.3f", b.chance, b.ceiling);
  return text;
}

// Rows r, columns (set, T) over all moduli sizes.
void printIterationSweep(const storage::IterationSweep& sweep) {
  if (sweep.cells.empty()) return;
  std::printf("\naccuracy against test-time iterations r (exact match; set:T):\n%6s", "r");
  for (const auto& c : sweep.columns) {
    const std::string name = c.first + ":" + std::to_string(c.second);
    std::printf(" %10s", name.c_str());
  }
  std::printf("\n");
  for (const auto& [r, cells] : sweep.cells) {
    std::printf("%6lld", (long long)r);
    for (const auto& c : sweep.columns) {
      const auto it = cells.find(c);
      if (it == cells.end() || it->second.second == 0)
        std::printf(" %10s", "-");
      else
        std::printf(" %10.3f", double(it->second.first) / double(it->second.second));
    }
    std::printf("\n");
  }
}

int runSquaringEval(const SquaringEvalOptions& options) {
  if (access(options.db_path.c_str(), F_OK) != 0)
    throw UserError(options.db_path + ": no such database. Pass --db");
  auto db = storage::Database::open(options.db_path, /*read_only=*/true);
  if (!options.ladder.empty()) return printLadderScores(*db, options);
  if (options.run_id < 0)
    throw UserError("squaring eval: name a run id or --ladder NAME (see 'deepladder status')");
  const std::string run_text = "run " + std::to_string(options.run_id);
  const auto run = db->run(options.run_id);
  if (!run)
    throw UserError(run_text + " is not in " + options.db_path +
                    ". See 'deepladder status' for run ids");
  const RunConfig config = runConfigFromJson(nlohmann::json::parse(run->config_json));
  if (config.task != Task::squaring)
    throw UserError(run_text + " is a \"" + enumName(config.task) +
                    "\" run; 'squaring eval' reads runs with task = \"squaring\"");
  const auto read = storage::readSquaringRun(*db, options.run_id, options.step);
  if (!read && options.step < 0)
    throw UserError(run_text + " has no evals yet. They appear every train.eval_every steps");
  if (!read)
    throw UserError(run_text + " has no evals at step " + std::to_string(options.step) +
                    ". Leave out --step for the latest");
  if (!read->maps) throw UserError(run_text + ": " + read->maps_error);
  const sq::TierPreset& tier = *read->tier;
  const sq::RunMaps& maps = *read->maps;
  const std::string source = config.squaring.data_dir.empty()
                                 ? "data_seed " + std::to_string(config.squaring.data_seed)
                                 : "data_dir " + config.squaring.data_dir;
  const options::Admissibility admissibility = options::admissibility(config);
  std::printf("run %lld (%s), tier %s, layout %s, %s, step %lld, %s\n", (long long)options.run_id,
              config.name.c_str(), tier.name.c_str(), enumName(config.squaring.layout).c_str(),
              source.c_str(), (long long)read->step, admissibility.label().c_str());
  for (const auto& row : maps.unmatched)
    std::printf(
        "  (%s cell bits %d T %lld: %lld/%lld, no matching regenerated data for its "
        "chance level)\n",
        row.task.c_str(), row.bits, (long long)row.t, (long long)row.correct, (long long)row.total);
  std::printf("\nheld-out prompts (squaring/test, squaring/ood_t):\n%s",
              maps.held_out.format().c_str());
  std::printf(
      "\ndepth ladder: the same cohort at every T, none of it trained on (squaring/depth):\n%s",
      maps.depth.format().c_str());

  // The benchmark's numbers.
  const auto [test_base, ood_base] = storage::testAndOodBaselines(config.squaring);
  std::printf(
      "\ntest exact %.3f (%s)\nOOD exact  %.3f (%s)\nscore      %.3f (mean of test and "
      "OOD exact), %s\nMax T: seen moduli %lld, unseen moduli %lld\n",
      maps.test_exact, baselineText(test_base).c_str(), maps.ood_exact,
      baselineText(ood_base).c_str(), sq::benchmarkScore(maps.test_exact, maps.ood_exact),
      admissibility.label().c_str(), (long long)maps.depth.maxT(tier.depth_ladder, true),
      (long long)maps.depth.maxT(tier.depth_ladder, false));
  if (!admissibility.admissible)
    std::printf(
        "inadmissible: %s makes training targets from the task's algorithm (the benchmark's "
        "rules forbid it), so these scores are not comparable with its leaderboard\n",
        admissibility.offendingText().c_str());
  printIterationSweep(read->iteration_sweep);
  return 0;
}

CommandRegistrar register_squaring_eval("squaring-eval", 75, [](CLI::App& cli) {
  CLI::App* squaring = cli.get_subcommand("squaring");
  auto options = std::make_shared<SquaringEvalOptions>();
  CLI::App* cmd = squaring->add_subcommand(
      "eval",
      "Print a squaring run's accuracy maps (accuracy/chance[/composition ceiling]), test and "
      "OOD exact, score, Max T and the accuracy-vs-iterations table from the evals table");
  cmd->add_option("run", options->run_id, "Run id (see 'deepladder status')")->check(runIdCheck());
  cmd->add_option("--ladder", options->ladder,
                  "A squaring ladder: its arms and sizes over seeds (mean score, min Max T)");
  cmd->add_option("--db", options->db_path, "SQLite database")->capture_default_str();
  cmd->add_option("--step", options->step, "Step of the evals (default: the latest)");
  cmd->callback([options] { commandExitCode() = runSquaringEval(*options); });
});

}  // namespace
}  // namespace deepladder::app
