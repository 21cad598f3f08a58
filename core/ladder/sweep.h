// Sweeps: one more axis of a ladder's grid. [sweep] names run options of the schema with a list
// of values each (`train.lr_mult = [0.25, 0.5, 1, 2]`); several options sweep their product; an
// arm's [arms.NAME.sweep] replaces the ladder's list of an option it names and may add options
// of its own. Every (arm, size, seed) cell then runs once per point, named
// arm-size-sSEED-<label> with the point's label ("lr_mult0.5", "lr_mult0.5-beta20.99"), so its
// directory, its row in `plan` and its point in a fit say which point it ran.
//
// What it does not do: choose a rung's best point (that is a step of the fit's inputs,
// fitting/sweep_envelope.h), or check a value against other options (validate() does, per run,
// naming the sweep's line as the value's origin).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/options/option_schema.h"
#include "core/options/option_toml.h"
#include "core/run_config.h"
#include "core/toml_reader.h"

namespace deepladder::ladder {

// One swept option, its values (in the order written) and where it was written.
struct SweepAxis {
  const options::OptionSpec* option = nullptr;
  std::vector<options::OptionValue> values;
  std::string file;
  long line = 0;
  std::string key;  // as written: "sweep.train.lr_mult", "arms.vanilla.sweep.train.lr_mult"
};

// The axes of one arm's sweep; empty: no sweep (one point, unlabelled).
using Sweep = std::vector<SweepAxis>;

// One point of a sweep: a value per axis (aligned with the Sweep's axes) and its label.
struct SweepPoint {
  std::vector<options::OptionValue> values;
  std::string label;  // "lr_mult0.5"; "" for the single point of no sweep
};

// [sweep] or [arms.NAME.sweep]: section tables of option lists. Refuses, at the key's line, an
// unknown option (naming the nearest), a value of the wrong type or outside the option's range,
// an empty list, a value listed twice, a top-level option, train.seed (seeds are [ladder]'s) and
// a value whose spelling cannot be part of a run name.
Sweep readSweep(TomlReader table);

// The arm's sweep: its axes replace the ladder's axes of the same option, the others are added.
Sweep overrideSweep(const Sweep& ladder, const Sweep& arm);

// Every point of the product of the axes, the first axis varying slowest; {one empty point} for
// no axes.
std::vector<SweepPoint> sweepPoints(const Sweep& sweep);

// How many points sweepPoints would give (a double: a product of many axes may exceed any
// integer), counted without making them.
double sweepPointCount(const Sweep& sweep);

// Sets the point's values on `config`, recording the sweep's lines as their origins.
void applySweepPoint(const Sweep& sweep, const SweepPoint& point, RunConfig& config,
                     options::OptionOrigins* origins);

// A value as a run name spells it: "0.5", "2", "1e-05", "true", "swiglu".
std::string sweepValueText(const options::OptionValue& value);

// The key an option has in labels: its key ("lr_mult"), or "section.key" when another section
// has a key of that name.
std::string sweepLabelKey(const options::OptionSpec& option);

// "train.lr_mult = 0.25, 0.5, 1, 2; train.beta2 = 0.95, 0.99" ("" for no sweep).
std::string describeSweep(const Sweep& sweep);

// arm-size-sSEED, then -LABEL when the run is a sweep point.
std::string sweepRunName(const std::string& arm, const std::string& size, int64_t seed,
                         const std::string& label);

// The label of a run named by sweepRunName ("" when the name carries none or is not of that
// form): how stored runs say which point they ran.
std::string sweepLabelOfRunName(const std::string& name, const std::string& arm,
                                const std::string& size, int64_t seed);

// A label back into (label key, value text) pairs, in label order; {} for "".
std::vector<std::pair<std::string, std::string>> parseSweepLabel(const std::string& label);

// A label's value text as a number; NaN when it is not one (a choice, a boolean).
double sweepValueNumber(const std::string& text);

// A rung whose best sweep point is at an edge of the values tried (fitting/sweep_envelope.h
// decides which; sweep_extension.h plans the point past it).
struct SweepEdge {
  std::string arm, size;
  std::string chosen;              // the best point's label ("lr_mult0.25")
  std::vector<std::string> tried;  // every point's label the rung has run
};

}  // namespace deepladder::ladder
