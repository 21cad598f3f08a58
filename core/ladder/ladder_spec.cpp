// Ladder spec reading and grid expansion (see ladder_spec.h).
#include "core/ladder/ladder_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "core/architecture.h"
#include "core/errors.h"
#include "core/flop_model.h"
#include "core/ladder/growth_recipe.h"
#include "core/ladder/ladder_sections.h"
#include "core/ladder/memory_plan.h"
#include "core/ladder/recipe_sections.h"
#include "core/names.h"
#include "core/options/option_toml.h"
#include "core/options/validate.h"
#include "core/safe_text.h"
#include "core/sha256.h"
#include "core/squaring/tokens.h"
#include "core/toml_reader.h"

namespace deepladder::ladder {

namespace {

// Two runs named alike would share one directory (checkpoints deleting each other, one point
// counted twice): arm "a-b" with size "c" and arm "a" with size "b-c" are both "a-b-c-s1".
using RunNames = std::map<std::string, std::pair<std::string, std::string>>;  // name -> arm, size

void requireDistinctRunName(const PlannedRun& run, const TomlReader& arms, RunNames& names) {
  const auto [it, added] = names.emplace(run.name, std::make_pair(run.arm, run.size));
  if (added) return;
  arms.fail(run.arm,
            "the runs of arm \"" + it->second.first + "\" size \"" + it->second.second +
                "\" and of arm \"" + run.arm + "\" size \"" + run.size +
                "\" would both be named \"" + run.name + "\" and share one directory",
            "rename an arm or a size so that arm-size-sSEED(-SWEEP) names differ");
}

}  // namespace

LadderSpec parseLadder(const std::string& text, const std::string& source_name) {
  toml::table root = parseTomlString(text, source_name);
  TomlReader r(root, source_name);
  LadderSpec spec;
  spec.source = source_name;
  spec.text = text;
  spec.hash = sha256Hex(text.data(), text.size()).substr(0, 16);

  TomlReader head = r.table("ladder");
  spec.name = head.string("name", "");
  if (spec.name.empty())
    head.fail("name", "the ladder needs a name", "add name = \"my-ladder\" under [ladder]");
  checkName(spec.name, "ladder", source_name, head.lineOf("name"), head.qualified("name"));
  spec.task = head.choice("task", spec.task, {"lm", "squaring"});
  const Task task = *enumFromName<Task>(spec.task);
  spec.description = head.string("description", "");
  const std::string recipe = head.choice("recipe", "", {"", "growth-paper"});
  spec.seeds = head.integers("seeds", 0, std::numeric_limits<int64_t>::max());
  if (spec.seeds.empty()) spec.seeds = {1};
  std::set<int64_t> distinct_seeds;
  for (int64_t seed : spec.seeds)
    if (!distinct_seeds.insert(seed).second)
      head.fail("seeds", "seed " + std::to_string(seed) + " appears twice",
                "list each seed once: two runs with one seed would share one directory");
  head.finish();

  // Run defaults: [model], [data], [train], [squaring]; each planned run then applies its size
  // and its arm on top, and remembers where every value came from for validate()'s messages.
  RunConfig base;
  base.task = task;
  if (task == Task::squaring) base.model.vocab_size = squaring::kVocabSize;
  options::OptionOrigins base_origins;
  for (options::Section section : options::allSections()) {
    if (section == options::Section::root) continue;
    TomlReader table = r.table(std::string(options::sectionName(section)));
    options::applyTomlSection(table, section, base, &base_origins);
  }
  const std::vector<SizeEntry> sizes = readSizes(r.table("sizes"));
  const TomlReader budget_reader = r.table("budget");
  const BudgetRule budget = readBudget(budget_reader, sizes.size());
  spec.resources = readResources(r.table("resources"));
  const RecipeGlobals globals = readRecipeGlobals(r.table("recipe"));
  DeviceBudget device = budgetFromResources(spec.resources);
  if (device.bytes > 0) device.source += " (" + source_name + ")";
  if (!recipe.empty() && !r.raw().get("sizes"))
    r.fail("sizes", "a recipe ladder needs [sizes] depths = [..]");

  TomlReader arms = r.table("arms");
  std::vector<std::string> arm_names = arms.keys();
  if (arm_names.empty()) arm_names = {"vanilla"};
  for (const std::string& arm : arm_names)
    checkName(arm, "arm", source_name, arms.lineOf(arm), arms.qualified(arm));
  for (const auto& size : sizes) spec.sizes.push_back(size.name);
  spec.arms = arm_names;
  // Sweeps: the ladder's [sweep], each arm's own lists on top (core/ladder/sweep.h).
  const Sweep ladder_sweep = readSweep(r.table("sweep"));
  const toml::table no_overrides;
  double planned_runs = 0;
  for (const std::string& arm : arm_names) {
    TomlReader arm_reader = arms.has(arm) ? arms.table(arm) : TomlReader(no_overrides, source_name);
    spec.sweeps[arm] = overrideSweep(ladder_sweep, readSweep(arm_reader.table("sweep")));
    planned_runs += double(sizes.size()) * double(spec.seeds.size()) *
                    double(sweepPoints(spec.sweeps[arm]).size());
  }
  if (planned_runs > kMaxLadderRuns)
    head.fail("seeds",
              "arms x sizes x seeds x sweep points is " + std::to_string(int64_t(planned_runs)) +
                  " runs (at most " + std::to_string(kMaxLadderRuns) + ")",
              "split the ladder, or use fewer seeds or sweep values");

  RunNames run_names;  // run names must be distinct: one directory each
  for (const std::string& arm : arm_names) {
    TomlReader arm_reader = arms.has(arm) ? arms.table(arm) : TomlReader(no_overrides, source_name);
    for (size_t rung = 0; rung < sizes.size(); ++rung) {
      RunConfig config = base;
      options::OptionOrigins origins = base_origins;
      TomlReader size_reader(sizes[rung].model_overrides, source_name, sizes[rung].path);
      options::applyTomlSection(size_reader, options::Section::model, config, &origins);
      const int64_t rung_depth = config.model.n_layer;
      TomlReader arm_copy = arm_reader;
      const std::string preset = arm_copy.string("preset", isArmPreset(arm) ? arm : "");
      if (!preset.empty()) {
        if (!isArmPreset(preset)) {
          std::string names;
          for (const auto& n : armPresetNames()) names += (names.empty() ? "" : ", ") + n;
          arm_copy.fail("preset", "unknown arm preset \"" + preset + "\"", "use one of " + names);
        }
        applyArmPreset(preset, config.model);
      }
      const std::vector<std::string> only = arm_copy.strings("sizes");
      for (const auto& name : only)  // a typo must not drop the arm without a word
        if (std::none_of(sizes.begin(), sizes.end(),
                         [&](const SizeEntry& s) { return s.name == name; }))
          arm_copy.fail("sizes", "unknown size \"" + shownText(name) + "\"",
                        "use the names of [sizes]: " + sizeNames(sizes));
      bool included = only.empty();
      for (const auto& name : only) included = included || name == sizes[rung].name;
      std::optional<RecipeRung> recipe_rung;
      if (!recipe.empty()) {
        const RecipeArmConstants k = readRecipeArm(arm_copy.table("recipe"));
        TomlReader cross = arm_copy.table("crossover");
        for (const auto& key : cross.keys()) (void)cross.number(key, 0, 0, 1);
        const RecipeArmShape shape = recipeArmShape(preset.empty() ? "vanilla" : preset);
        double f = 0;
        if (shape.grow_passes > 0 && included) {
          if (!cross.has(sizes[rung].name))
            arm_copy.fail("crossover",
                          "no crossover fraction for size \"" + sizes[rung].name + "\"",
                          "add " + sizes[rung].name + " = 0.75 to this arm's crossover table");
          f = cross.number(sizes[rung].name, 0, 0, 1);
        }
        try {
          recipe_rung = planRecipeRung(globals, shape, rung_depth, k.tpp, k.g, f);
        } catch (const UserError& e) {  // locate it: the arm's recipe
          arm_copy.fail("recipe", e.what());
        }
        applyRecipe(config, globals, k, *recipe_rung, f);
      }
      for (options::Section section : options::allSections()) {
        if (section == options::Section::root) continue;
        TomlReader table = arm_copy.table(std::string(options::sectionName(section)));
        options::applyTomlSection(table, section, config, &origins);
      }
      arm_copy.skip("sweep");  // read above
      arm_copy.finish();
      if (!included) continue;

      const RunConfig rung_config = config;
      const options::OptionOrigins rung_origins = origins;
      const Sweep& sweep = spec.sweeps.at(arm);
      for (const SweepPoint& point : sweepPoints(sweep)) {
        RunConfig config = rung_config;
        options::OptionOrigins origins = rung_origins;
        applySweepPoint(sweep, point, config, &origins);
        const int64_t tokens_per_step = config.train.batch_size * config.model.seq_len;
        if (!recipe_rung) {
          // The options are checked before the budget is turned into steps (a head count of 0
          // would divide by zero on the way, an unknown squaring tier has no cost per step).
          options::validatePlanningInputs(
              config, source_name + " (" + arm + "-" + sizes[rung].name + ")", &origins);
          const double tokens_target = targetTokens(budget, rung, config);
          const double max_tokens =
              std::min(kMaxRunTokens, double(options::kMaxCount) * double(tokens_per_step));
          if (!(tokens_target >= 0.5 * double(tokens_per_step)) || tokens_target > max_tokens)
            budget_reader.fail(
                budget.rule == "flops" ? "flops" : budget.rule,
                "the budget gives arm \"" + arm + "\" size \"" + sizes[rung].name + "\" " +
                    formatTokenBudget(tokens_target) + " tokens, " +
                    (tokens_target > max_tokens
                         ? "more than " + formatTokenBudget(max_tokens) + " (at most " +
                               std::to_string(options::kMaxCount) + " steps of " +
                               std::to_string(tokens_per_step) + ")"
                         : "less than one step of " + std::to_string(tokens_per_step)),
                "check the budget's value and unit");
          config.train.steps = std::max<int64_t>(
              1, static_cast<int64_t>(std::llround(tokens_target / double(tokens_per_step))));
          if (config.train.warmup_steps > config.train.steps / 5)
            config.train.warmup_steps = config.train.steps / 5;  // short rungs keep a short warmup
        }
        for (int64_t seed : spec.seeds) {
          PlannedRun run;
          run.arm = arm;
          run.size = sizes[rung].name;
          run.seed = seed;
          run.name = sweepRunName(arm, sizes[rung].name, seed, point.label);
          run.sweep_label = point.label;
          for (size_t axis = 0; axis < sweep.size(); ++axis)
            run.sweep_point.emplace_back(sweep[axis].option->qualifiedKey(), point.values[axis]);
          run.config = config;
          run.config.name = run.name;
          run.config.train.seed = seed;
          options::validateRunConfig(run.config, source_name + " (" + run.name + ")", &origins);
          static_cast<RunPlan&>(run) = planRunConfig(run.config, 0);
          run.depth = rung_depth;
          if (recipe_rung) {  // the paper's own accounting (growth_recipe.h)
            run.params = recipe_rung->params;
            run.executed_depth = recipe_rung->blocks_low;
            run.executed_depth_after_growth = recipe_rung->blocks_high;
            run.crossover_step = recipe_rung->crossover;
            run.flops_per_token = recipe_rung->flops_per_token_low;
            run.tokens = recipe_rung->tokens;
            run.flops = recipe_rung->flops;
          }
          planTime(run, spec.resources);
          planMemory(run, device);  // the micro-batch that fits, or a refusal
          spec.runs.push_back(std::move(run));
          requireDistinctRunName(spec.runs.back(), arms, run_names);
        }
      }
    }
  }
  arms.finish();
  r.finish();
  return spec;
}

LadderSpec loadLadder(const std::string& path) {
  return parseLadder(readTextFile(path), path);
}

}  // namespace deepladder::ladder
