// Zooming into curves read through the metric pyramid: which step range of a curve a view needs
// at a finer resolution than what was loaded, and splicing the finer points read for it into the
// curve. A curve is loaded whole at the level that matches the plot's width; a zoom then reads
// only the visible steps, at the level that matches the width again (every row when zoomed in
// further than the finest level).
#pragma once

#include <cstdint>
#include <optional>

#include "ui/plots/curves_plot.h"

namespace deepladder::plots {

struct StepRange {
  int64_t lo = 0, hi = -1;
};

// The steps the view [x_lo, x_hi] of `s` spans (one point beyond each edge), when `pixels`
// columns across it need finer buckets than `s` holds there; nullopt when what it holds is fine
// enough (or `s` was not read through the pyramid).
std::optional<StepRange> stepsToRefine(const CurveSeries& s, double x_lo, double x_hi, int pixels);

// Replaces the points of `s` from the first to the last step of `fine` by fine's points and
// records fine's range and resolution. `fine` holds the same curve, on the same x axis.
void spliceFinerPoints(CurveSeries& s, const CurveSeries& fine, StepRange range);

}  // namespace deepladder::plots
