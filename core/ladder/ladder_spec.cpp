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
#include "core/ladder/ladder_identity.h"
#include "core/ladder/ladder_sections.h"
#include "core/ladder/memory_plan.h"
#include "core/ladder/recipe_sections.h"
#include "core/ladder/sweep_conflicts.h"
#include "core/names.h"
#include "core/options/option_toml.h"
#include "core/options/validate.h"
#include "core/safe_text.h"
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

// What the file says once, for planning every (arm, size, sweep point): the run defaults and
// the tables every rung reads again.
struct LadderInputs {
  std::string source_name;
  std::string recipe;  // [ladder] recipe: "" or "growth-paper"
  RunConfig base;      // [model], [data], [train], [squaring]
  options::OptionOrigins base_origins;
  std::vector<SizeEntry> sizes;
  TomlReader budget_reader;
  BudgetRule budget;
  RecipeGlobals globals;
  DeviceBudget device;
};

// [ladder]: the name, task, description, recipe and seeds. Returns the recipe's name ("" for none).
std::string readLadderHead(TomlReader& head, LadderSpec& spec) {
  spec.name = head.string("name", "");
  if (spec.name.empty())
    head.fail("name", "the ladder needs a name", "add name = \"my-ladder\" under [ladder]");
  checkName(spec.name, "ladder", spec.source, head.lineOf("name"), head.qualified("name"));
  spec.task = head.choice("task", spec.task, {"lm", "squaring"});
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
  return recipe;
}

// One arm at one size, before its sweep points: the defaults, the size's [model] overrides, the
// arm's preset, the recipe's shape and the arm's own tables, with where each value came from.
struct RungConfig {
  RunConfig config;
  options::OptionOrigins origins;
  int64_t depth = 0;     // the size's n_layer, before the arm's preset
  bool included = true;  // false: the arm lists sizes = [..] without this one
  std::optional<RecipeRung> recipe_rung;
};

RungConfig configureRung(const LadderInputs& in, const std::string& arm,
                         const TomlReader& arm_reader, size_t rung) {
  const SizeEntry& size = in.sizes[rung];
  RungConfig out;
  out.config = in.base;
  out.origins = in.base_origins;
  TomlReader size_reader(size.model_overrides, in.source_name, size.path);
  options::applyTomlSection(size_reader, options::Section::model, out.config, &out.origins);
  out.depth = out.config.model.n_layer;
  TomlReader arm_copy = arm_reader;
  const std::string preset = arm_copy.string("preset", isArmPreset(arm) ? arm : "");
  if (!preset.empty()) {
    if (!isArmPreset(preset)) {
      std::string names;
      for (const auto& n : armPresetNames()) names += (names.empty() ? "" : ", ") + n;
      arm_copy.fail("preset", "unknown arm preset \"" + preset + "\"", "use one of " + names);
    }
    applyArmPreset(preset, out.config.model);
  }
  const std::vector<std::string> only = arm_copy.strings("sizes");
  for (const auto& name : only)  // a typo must not drop the arm without a word
    if (std::none_of(in.sizes.begin(), in.sizes.end(),
                     [&](const SizeEntry& s) { return s.name == name; }))
      arm_copy.fail("sizes", "unknown size \"" + shownText(name) + "\"",
                    "use the names of [sizes]: " + sizeNames(in.sizes));
  out.included = only.empty();
  for (const auto& name : only) out.included = out.included || name == size.name;
  if (!in.recipe.empty()) {
    const RecipeArmConstants k = readRecipeArm(arm_copy.table("recipe"));
    TomlReader cross = arm_copy.table("crossover");
    for (const auto& key : cross.keys()) (void)cross.number(key, 0, 0, 1);
    const RecipeArmShape shape = recipeArmShape(preset.empty() ? "vanilla" : preset);
    double f = 0;
    if (shape.grow_passes > 0 && out.included) {
      if (!cross.has(size.name))
        arm_copy.fail("crossover", "no crossover fraction for size \"" + size.name + "\"",
                      "add " + size.name + " = 0.75 to this arm's crossover table");
      f = cross.number(size.name, 0, 0, 1);
    }
    try {
      out.recipe_rung = planRecipeRung(in.globals, shape, out.depth, k.tpp, k.g, f);
    } catch (const UserError& e) {  // locate it: the arm's recipe
      arm_copy.fail("recipe", e.what());
    }
    applyRecipe(out.config, in.globals, k, *out.recipe_rung, f);
  }
  for (options::Section section : options::allSections()) {
    if (section == options::Section::root) continue;
    TomlReader table = arm_copy.table(std::string(options::sectionName(section)));
    options::applyTomlSection(table, section, out.config, &out.origins);
  }
  arm_copy.skip("sweep");  // read with the ladder's sweeps
  arm_copy.finish();
  return out;
}

// The budget as steps of one run (no recipe: a recipe plans its own). A warmup longer than a
// fifth of the steps is cut to that fifth (short rungs keep a short warmup); when the file set
// warmup_steps, a warning says so.
void applyTokenBudget(const LadderInputs& in, const std::string& arm, size_t rung,
                      RunConfig& config, const options::OptionOrigins& origins,
                      std::vector<std::string>& warnings) {
  const std::string& size = in.sizes[rung].name;
  const int64_t tokens_per_step = config.train.batch_size * config.model.seq_len;
  // The options are checked before the budget is turned into steps (a head count of 0 would
  // divide by zero on the way, an unknown squaring tier has no cost per step).
  options::validatePlanningInputs(config, in.source_name + " (" + arm + "-" + size + ")", &origins);
  const BudgetRule& budget = in.budget;
  const double tokens_target = targetTokens(budget, rung, config);
  const double max_tokens =
      std::min(kMaxRunTokens, double(options::kMaxCount) * double(tokens_per_step));
  if (!(tokens_target >= 0.5 * double(tokens_per_step)) || tokens_target > max_tokens)
    in.budget_reader.fail(budget.rule == "flops" ? "flops" : budget.rule,
                          "the budget gives arm \"" + arm + "\" size \"" + size + "\" " +
                              formatTokenBudget(tokens_target) + " tokens, " +
                              (tokens_target > max_tokens
                                   ? "more than " + formatTokenBudget(max_tokens) + " (at most " +
                                         std::to_string(options::kMaxCount) + " steps of " +
                                         std::to_string(tokens_per_step) + ")"
                                   : "less than one step of " + std::to_string(tokens_per_step)),
                          "check the budget's value and unit");
  config.train.steps = std::max<int64_t>(
      1, static_cast<int64_t>(std::llround(tokens_target / double(tokens_per_step))));
  const int64_t longest_warmup = config.train.steps / 5;
  if (config.train.warmup_steps <= longest_warmup) return;
  if (const options::OptionOrigin* set = origins.find("train.warmup_steps")) {
    std::string warning = set->file + ":" + std::to_string(set->line) + ": " + set->key + " = " +
                          std::to_string(config.train.warmup_steps) + " is more than a fifth of " +
                          "arm \"" + arm + "\" size \"" + size + "\"'s " +
                          std::to_string(config.train.steps) + " steps; it warms up for " +
                          std::to_string(longest_warmup) + " steps";
    if (std::find(warnings.begin(), warnings.end(), warning) == warnings.end())
      warnings.push_back(std::move(warning));
  }
  config.train.warmup_steps = longest_warmup;
}

// The runs of one (arm, size, sweep point), one a seed: named, validated, planned (FLOPs, time,
// the micro-batch that fits).
void planSeedRuns(LadderSpec& spec, const LadderInputs& in, const RungConfig& rung,
                  const std::string& arm, size_t rung_index, const Sweep& sweep,
                  const SweepPoint& point, const RunConfig& config,
                  const options::OptionOrigins& origins, const TomlReader& arms,
                  RunNames& run_names) {
  for (int64_t seed : spec.seeds) {
    PlannedRun run;
    run.arm = arm;
    run.size = in.sizes[rung_index].name;
    run.seed = seed;
    run.name = sweepRunName(arm, run.size, seed, point.label);
    run.sweep_label = point.label;
    for (size_t axis = 0; axis < sweep.size(); ++axis)
      run.sweep_point.emplace_back(sweep[axis].option->qualifiedKey(), point.values[axis]);
    run.config = config;
    run.config.name = run.name;
    run.config.train.seed = seed;
    if (run.config.task == Task::lm)  // halving judges from validation losses (sweep_stop.h)
      run.config.train.eval_at = evalAtWithStopFractions(run.config.train.eval_at, spec.sweep_stop);
    options::validateRunConfig(run.config, in.source_name + " (" + run.name + ")", &origins);
    static_cast<RunPlan&>(run) = planRunConfig(run.config, 0);
    run.depth = rung.depth;
    if (const auto& r = rung.recipe_rung) {  // the paper's own accounting (growth_recipe.h)
      run.params = r->params;
      run.executed_depth = r->blocks_low;
      run.executed_depth_after_growth = r->blocks_high;
      run.crossover_step = r->crossover;
      run.flops_per_token = r->flops_per_token_low;
      run.tokens = r->tokens;
      run.flops = r->flops;
    }
    planTime(run, spec.resources);
    planMemory(run, in.device);  // the micro-batch that fits, or a refusal
    spec.runs.push_back(std::move(run));
    requireDistinctRunName(spec.runs.back(), arms, run_names);
  }
}

}  // namespace

LadderSpec parseLadder(const std::string& text, const std::string& source_name) {
  toml::table root = parseTomlString(text, source_name);
  TomlReader r(root, source_name);
  LadderSpec spec;
  spec.source = source_name;
  spec.text = text;
  spec.hash = ladderIdentityHash(root);  // of what it says, not of its bytes
  TomlReader head = r.table("ladder");
  const std::string recipe = readLadderHead(head, spec);
  const Task task = *enumFromName<Task>(spec.task);

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
  std::vector<SizeEntry> sizes = readSizes(r.table("sizes"));
  TomlReader budget_reader = r.table("budget");
  const BudgetRule budget = readBudget(budget_reader, sizes.size());
  spec.resources = readResources(r.table("resources"));
  const RecipeGlobals globals = readRecipeGlobals(r.table("recipe"));
  DeviceBudget device = budgetFromResources(spec.resources);
  if (device.bytes > 0) device.source += " (" + source_name + ")";
  if (!recipe.empty() && !r.raw().get("sizes"))
    r.fail("sizes", "a recipe ladder needs [sizes] depths = [..]");
  const LadderInputs in{source_name,
                        recipe,
                        std::move(base),
                        std::move(base_origins),
                        std::move(sizes),
                        std::move(budget_reader),
                        budget,
                        globals,
                        device};

  TomlReader arms = r.table("arms");
  std::vector<std::string> arm_names = arms.keys();
  if (arm_names.empty()) arm_names = {"vanilla"};
  for (const std::string& arm : arm_names)
    checkName(arm, "arm", source_name, arms.lineOf(arm), arms.qualified(arm));
  for (const auto& size : in.sizes) spec.sizes.push_back(size.name);
  spec.arms = arm_names;
  // Sweeps: the ladder's [sweep], each arm's own lists on top (core/ladder/sweep.h).
  TomlReader sweep_table = r.table("sweep");
  spec.sweep_stop = readSweepStop(sweep_table);  // consumed here, so readSweep leaves them
  const Sweep ladder_sweep = readSweep(sweep_table);
  const toml::table no_overrides;
  auto armReader = [&](const std::string& arm) {
    return arms.has(arm) ? arms.table(arm) : TomlReader(no_overrides, source_name);
  };
  requireDeclaredSweptArms(arms);
  for (const std::string& arm : arm_names) {
    TomlReader arm_sweep = armReader(arm).table("sweep");
    refuseArmSweepStop(arm_sweep);
    spec.sweeps[arm] = overrideSweep(ladder_sweep, readSweep(arm_sweep));
  }
  // Refused before a single point is made: a product of many axes would not fit in memory.
  requirePlausibleRunCount(spec.sweeps, in.sizes.size(), spec.seeds.size(), head);
  requireSweepsTakeEffect(spec.sweeps, in.sizes, in.budget, !in.recipe.empty());

  RunNames run_names;  // run names must be distinct: one directory each
  for (const std::string& arm : arm_names) {
    const TomlReader arm_reader = armReader(arm);
    for (size_t rung = 0; rung < in.sizes.size(); ++rung) {
      const RungConfig rung_config = configureRung(in, arm, arm_reader, rung);
      if (!rung_config.included) continue;
      const Sweep& sweep = spec.sweeps.at(arm);
      for (const SweepPoint& point : sweepPoints(sweep)) {
        RunConfig config = rung_config.config;
        options::OptionOrigins origins = rung_config.origins;
        applySweepPoint(sweep, point, config, &origins);
        if (!rung_config.recipe_rung)
          applyTokenBudget(in, arm, rung, config, origins, spec.warnings);
        planSeedRuns(spec, in, rung_config, arm, rung, sweep, point, config, origins, arms,
                     run_names);
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
