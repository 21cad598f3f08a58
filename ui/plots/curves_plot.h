// Metric curves of several runs overlaid: any metric against step, tokens or FLOPs, linear or
// log axes, optional EMA smoothing with the raw curve faint behind. Every series is reduced
// to min/max per pixel column of the current view (decimation.h), so a redraw stays cheap at
// any number of points; redecimateCurves() redoes that after a pan or zoom.
#pragma once

#include <QString>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

class QCustomPlot;

namespace deepladder::plots {

enum class CurveAxis { kStep, kTokens, kFlops };
CurveAxis curveAxisFromName(const std::string& name);  // "step" | "tokens" | "flops"; UserError
QString curveAxisLabel(CurveAxis axis);

struct CurveSeries {
  QString label;
  std::vector<double> x;  // ascending
  std::vector<double> y;
  bool visible = true;
  // Where the points came from, when read through the metric pyramid (curve_series.h): the run,
  // each point's step, the steps one bucket spans (1 = every row), the finer range a zoom read
  // since (curve_refinement.h), and how many rows one point stands for on average. EMA
  // smoothing raises its weight to that power, so a curve smooths over as many steps as its
  // full-resolution rows would.
  int64_t run_id = 0;
  std::vector<int64_t> steps;
  int64_t bucket_steps = 1;
  int64_t fine_lo = 0, fine_hi = -1, fine_bucket_steps = 1;
  double rows_per_point = 1.0;
  // A group's seeds collapsed (core/run_grouping.h): y is their mean and [band_lo, band_hi] its
  // band at each x (empty for a single run's curve); runs: the curves averaged (0 for one run).
  std::vector<double> band_lo, band_hi;
  int runs = 0;
};

struct CurvesPlotInput {
  QString metric;  // y label, e.g. "val/loss"
  CurveAxis axis = CurveAxis::kStep;
  std::vector<CurveSeries> series;
  bool log_x = false;
  bool log_y = false;
  double ema = 0.0;  // smoothing weight in [0, 1); 0 = raw only
  QString title;
};

// Draws the curves into `plot` (which keeps a copy of the full-resolution data for later
// redecimation). Legend to the right. A series with a band gets it filled in its colour behind
// its line (two unnamed graphs just before the line). Redrawing the same series (a log or smoothing
// toggle) reuses the kept copies and smoothed curves. Beyond 20 series there is no legend, no faint
// raw curve behind the smoothed one and no antialiasing (100 runs draw in well under 100 ms).
void drawCurves(QCustomPlot& plot, const CurvesPlotInput& input);
// After the view changed: rebuild every graph from the full data at the new resolution (x
// range, axis rect width, and the value one pixel row spans). With only_if_view_changed it
// does nothing when none of those moved since the last call (cheap to call before every
// replot). Returns the number of points handed to QCustomPlot.
size_t redecimateCurves(QCustomPlot& plot, bool only_if_view_changed = false);

}  // namespace deepladder::plots
