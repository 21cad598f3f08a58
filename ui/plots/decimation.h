// Min/max-per-pixel-column reduction of a curve, so a plot of millions of points draws a few
// thousand and still shows every spike: within each pixel column the lowest and the highest
// point are kept (in the order they occur), plus the nearest point outside each edge so the
// line enters and leaves the view where it should. EMA smoothing (TensorBoard's) lives here too.
#pragma once

#include <QVector>
#include <cstddef>
#include <vector>

namespace deepladder::plots {

struct DecimatedCurve {
  QVector<double> x;
  QVector<double> y;
};

// xs must be ascending (steps, tokens, FLOPs are). Columns split [x_lo, x_hi] evenly, in
// log10(x) when log_x (points with x <= 0 are then dropped). Non-finite y values are skipped.
// Returns at most 2 * columns + 2 points. When a column's lowest and highest y differ by less
// than y_pixel (the value one pixel row spans; in log10(y) when log_y), that column keeps one
// point: the line would not move by a pixel between the two. y_pixel = 0 keeps both always.
DecimatedCurve decimateMinMax(const std::vector<double>& xs, const std::vector<double>& ys,
                              double x_lo, double x_hi, int columns, bool log_x,
                              double y_pixel = 0.0, bool log_y = false);

// s_i = w s_{i-1} + (1 - w) y_i with bias correction (as TensorBoard); w in [0, 1), 0 = raw.
std::vector<double> emaSmooth(const std::vector<double>& ys, double weight);

}  // namespace deepladder::plots
