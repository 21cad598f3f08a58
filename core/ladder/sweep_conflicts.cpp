// Sweeps refused before expansion (see sweep_conflicts.h).
#include "core/ladder/sweep_conflicts.h"

#include <cstdio>
#include <set>

#include "core/errors.h"
#include "core/ladder/ladder_spec.h"
#include "core/options/option_schema.h"

namespace deepladder::ladder {

namespace {

[[noreturn]] void failAtAxis(const SweepAxis& axis, const std::string& problem,
                             const std::string& hint) {
  throw UserError(locatedMessage(axis.file, axis.line, axis.key, problem, hint));
}

// The first size that sets `option` ([sizes] holds model keys only), or nullptr.
const SizeEntry* sizeSetting(const std::vector<SizeEntry>& sizes,
                             const options::OptionSpec& option) {
  if (option.section != options::Section::model) return nullptr;
  for (const SizeEntry& size : sizes)
    if (size.model_overrides.contains(option.key)) return &size;
  return nullptr;
}

std::string runCountText(double runs) {
  char text[40];
  std::snprintf(text, sizeof text, runs < 1e15 ? "%.0f" : "%.3g", runs);
  return text;
}

}  // namespace

void requireSweepsTakeEffect(const std::map<std::string, Sweep>& sweeps,
                             const std::vector<SizeEntry>& sizes, const BudgetRule& budget,
                             bool recipe) {
  for (const auto& [arm, sweep] : sweeps)
    for (const SweepAxis& axis : sweep) {
      const options::OptionSpec& option = *axis.option;
      const std::string key = option.qualifiedKey();
      if (option.flags & options::kSetByBudget)
        failAtAxis(axis,
                   recipe ? "the recipe sets " + key + " of every run from its rung's budget"
                          : "[budget] (rule \"" + budget.rule + "\") sets " + key +
                                " of every run from its rung's tokens",
                   "every point would train alike while named and counted apart; sweep what "
                   "the budget reads instead (e.g. [budget] or train.batch_size), or give each " +
                       key + " its own ladder");
      if (const SizeEntry* size = sizeSetting(sizes, option))
        failAtAxis(axis,
                   "[sizes] sets " + key + " of each rung (size \"" + size->name + "\" at " +
                       size->where + "), and a sweep of it would replace every rung's value",
                   "make each value a size of its own in [sizes] (an arm may keep to some "
                   "with sizes = [..]), or sweep an option [sizes] does not set");
    }
}

void requireDeclaredSweptArms(const TomlReader& arms) {
  std::vector<std::string> ghosts, declared;
  for (const std::string& arm : arms.keys()) {
    const toml::table* table = arms.raw().get(arm) ? arms.raw().get(arm)->as_table() : nullptr;
    const toml::node* sweep = table ? table->get("sweep") : nullptr;
    // A table that holds nothing but its sweep and starts where the sweep does was made by the
    // [arms.NAME.sweep] header (or a dotted key) alone: TOML's implicit table.
    const bool ghost =
        sweep && table->size() == 1 && table->source().begin.line == sweep->source().begin.line;
    (ghost ? ghosts : declared).push_back(arm);
  }
  if (ghosts.empty()) return;
  std::string names;
  for (const std::string& arm : declared) names += (names.empty() ? "" : ", ") + arm;
  arms.fail(ghosts.front() + ".sweep",
            "arm \"" + ghosts.front() + "\" is declared by nothing but its sweep table (" +
                (declared.empty() ? std::string("the file declares no arm")
                                  : "the file's arms: " + names) +
                ")",
            "to sweep one of those arms, name it; to add this arm, declare it with its own [arms." +
                ghosts.front() + "] header (preset, overrides) before its sweep");
}

namespace {

// "train.lr_mult 10 values x train.beta1 10 values": what multiplies into a sweep's points.
std::string axisValueCounts(const Sweep& sweep) {
  std::string out;
  for (const SweepAxis& axis : sweep)
    out += (out.empty() ? "" : " x ") + axis.option->qualifiedKey() + " " +
           std::to_string(axis.values.size()) + (axis.values.size() == 1 ? " value" : " values");
  return out;
}

}  // namespace

void requirePlausibleRunCount(const std::map<std::string, Sweep>& sweeps, size_t sizes,
                              size_t seeds, const TomlReader& head) {
  double planned_runs = 0;
  const Sweep* largest = nullptr;
  double largest_points = 1;
  for (const auto& [arm, sweep] : sweeps) {
    const double points = sweepPointCount(sweep);
    planned_runs += double(sizes) * double(seeds) * points;
    if (points > largest_points) {
      largest_points = points;
      largest = &sweep;
    }
  }
  if (planned_runs <= double(kMaxLadderRuns)) return;
  const std::string problem = "arms x sizes x seeds x sweep points is " +
                              runCountText(planned_runs) + " runs (at most " +
                              std::to_string(kMaxLadderRuns) + ")";
  if (!largest) head.fail("seeds", problem, "split the ladder, or use fewer seeds, sizes or arms");
  failAtAxis(largest->front(),
             problem + "; this sweep alone has " + runCountText(largest_points) + " points (" +
                 axisValueCounts(*largest) + ")",
             "sweep fewer options or values at once (one option at a time, then the next around "
             "its best value), or split the ladder");
}

}  // namespace deepladder::ladder
