// Grouping runs by the values of some of their options and collapsing each group's seeds into one
// curve: the mean with a band (min-max, or +-1 sample standard deviation) on a common grid. Plain
// numerics on plain data, so Compare (ui/workbench), the CLI and the tests share one definition.
// What a run's option values are (schema options, arm, size, ladder, seed) is run_option_values.h.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace deepladder {

// A run's option values as text, by option name ("arm", "train.lr_mult", ...).
using OptionValues = std::map<std::string, std::string>;

// One group: the values of the grouped-by options its runs share and the runs in it.
struct RunGroup {
  std::vector<std::string> values;  // one per grouped-by option, in the order asked for
  std::string label;                // "arm=vanilla, lr_mult=0.5" (option names without section)
  std::vector<size_t> members;      // indices into the runs handed to groupRuns, ascending
};

// The runs grouped by the options in `group_by` (a run without an option counts as the value
// ""): one group per combination of values that occurs, ordered by the values, numbers by value
// ("2" before "10"), text alphabetically. Grouping by no option gives one group of every run.
std::vector<RunGroup> groupRuns(const std::vector<OptionValues>& runs,
                                const std::vector<std::string>& group_by);

// The options whose value differs between some of `runs` (candidates worth grouping by), in
// name order.
std::vector<std::string> varyingOptions(const std::vector<OptionValues>& runs);

// "train.lr_mult" -> "lr_mult"; a name without a section stays as it is.
std::string shortOptionName(const std::string& name);

// Orders option values as groupRuns does: both numbers -> by value, else as text.
bool optionValueLess(const std::string& a, const std::string& b);

enum class SeedBand {
  kMinMax,  // lo, hi: the least and the greatest of the runs' values at each grid point
  kStdDev,  // lo, hi: mean -+ the sample standard deviation (ddof = 1; 0 for a single run)
};

// One curve to collapse: x ascending (points with a non-finite x or y are skipped).
struct CurveRef {
  const std::vector<double>* x;
  const std::vector<double>* y;
};

// A group's curves on one grid.
struct CollapsedCurve {
  std::vector<double> x;     // the grid
  std::vector<double> mean;  // sum_r y_r(x) / n
  std::vector<double> lo, hi;
  int runs = 0;  // n: curves averaged (those with at least one finite point)
};

// The group's curves interpolated (linearly) onto `grid_points` points spread evenly over the
// range every curve covers ([max of the first x, min of the last x]; geometrically when log_grid
// and the range is positive), then averaged point by point with the band asked for. Empty when
// no curve has a point or the curves' ranges do not overlap; a single curve is its own mean with a
// zero-width band.
CollapsedCurve collapseCurves(const std::vector<CurveRef>& curves, SeedBand band,
                              int grid_points = 400, bool log_grid = false);

// y at x on the polyline (xs ascending), linear between neighbours, clamped at the ends.
double interpolateAt(const std::vector<double>& xs, const std::vector<double>& ys, double x);

}  // namespace deepladder
