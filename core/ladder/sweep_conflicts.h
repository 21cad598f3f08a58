// Sweeps that could not do what they say, refused when the ladder is read (before any run is
// expanded): a swept option that the ladder sets again for every run after the sweep (the
// [budget] sets train.steps, [sizes] sets each rung's model keys), an [arms.NAME.sweep] for an
// arm the file never declares, and a product of sweep points too large to plan.
//
// What it does not do: check a swept value against the other options (validate() does, per
// run), or read the sweep (sweep.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/ladder/ladder_sections.h"
#include "core/ladder/sweep.h"
#include "core/toml_reader.h"

namespace deepladder::ladder {

// Refuses, at the sweep's line, an axis over an option the ladder sets again after the sweep:
// one the schema marks kSetByBudget (the budget or the recipe turns each rung's tokens into it) or
// one that a size of [sizes] sets (a depth ladder's d_model, n_layer and n_head; an explicit list's
// keys). Every point would otherwise train alike (or not as its name says) while `plan` counts
// each.
void requireSweepsTakeEffect(const std::map<std::string, Sweep>& sweeps,
                             const std::vector<SizeEntry>& sizes, const BudgetRule& budget,
                             bool recipe);

// Refuses an arm that only its [arms.NAME.sweep] table brings into being (no [arms.NAME] header
// of its own, nothing but a sweep): a typo of an arm's name would otherwise add an arm of the
// ladder's defaults. The message lists the arms the file declares.
void requireDeclaredSweptArms(const TomlReader& arms);

// Arms x sizes x seeds x sweep points, counted without expanding a point, refused beyond
// kMaxLadderRuns at the line of the sweep that makes it so large (or of [ladder] seeds).
void requirePlausibleRunCount(const std::map<std::string, Sweep>& sweeps, size_t sizes,
                              size_t seeds, const TomlReader& head);

}  // namespace deepladder::ladder
