// Shared look of every deepladder plot: series colours, fonts, axis labels, log axes with
// powers-of-ten ticks, the legend in its own column to the right so it never covers data, and
// frame colours from the light or dark palette.
#pragma once

#include <QColor>
#include <QString>
#include <vector>

class QCustomPlot;
class QCPAxis;
class QCPGraph;
class QPalette;

namespace deepladder::plots {

// Colour of the index-th series (a colour-blind-friendly ten-colour cycle).
QColor seriesColor(int index);
// The same colour with alpha (0..255), for faint raw curves and bands.
QColor faded(const QColor& color, int alpha);
// Makes `upper` and `lower` a filled band (no outline, not in the legend, drawn on the grid layer:
// above the grid lines, below every point and curve) in `color` at `alpha`.
void makeBand(QCPGraph& upper, QCPGraph& lower, const QColor& color, int alpha);

// Clears the plot and applies fonts, margins, grid, axis labels and an optional title.
void preparePlot(QCustomPlot& plot, const QString& title, const QString& x_label,
                 const QString& y_label);
// Log scale with ticks at powers of ten, labelled 10^n (superscript).
void setLogAxis(QCPAxis& axis);
// Log scale with ticks at powers of two, labelled plainly (0.25, 1, 4: depths, multipliers).
void setLog2Axis(QCPAxis& axis);
void setLinearAxis(QCPAxis& axis);
// The range of an axis of multipliers (ratios) from lo to hi: log once they span more than a
// decade (0.5x and 2x then stand equally far from 1x), else linear with at least +-5% around
// them (a range of the 1x line alone stays readable).
void setRatioAxisRange(QCPAxis& axis, double lo, double hi);
// Moves the legend into a column right of the axis rect (shown only when it has items).
void placeLegendRight(QCustomPlot& plot);
// Legend inside the axis rect at `corner` (for plots whose data leaves that corner empty),
// on a translucent background.
void placeLegendInside(QCustomPlot& plot, Qt::Alignment corner);

// Colours of the plot's frame (background, axes, labels, grid, legend, title) from a palette:
// the window's, so plots follow the system's light or dark theme. Data colours stay as they
// are. preparePlot applies the plot widget's own palette; exports always use lightPalette().
void applyPlotPalette(QCustomPlot& plot, const QPalette& palette);
// Draws `graph` as a reference line (E, 1x, eps, chance): a dashed grey that applyPlotPalette
// keeps readable on a light or a dark background.
void setReferenceLinePen(QCPGraph& graph, double width = 1.2);
// A light palette (white paper, black ink): what exports are written with.
QPalette lightPalette();
// True when `palette` draws light text on a dark base.
bool isDarkPalette(const QPalette& palette);

// Legend inside the axis rect at whichever corner covers the fewest drawn points (graph data
// and the inside of filled bands), trying `corners` in order; ties keep the earlier corner.
// Lays the plot out at its current size to measure.
void placeLegendInFreestCorner(QCustomPlot& plot, const std::vector<Qt::Alignment>& corners);

// Compact number for read-outs and legends: 1.23e+20 -> "1.23e20", 0.5 -> "0.5".
QString compactNumber(double value, int precision = 3);

// How far beyond the multipliers a plot shows an interval may reach its axis (the history and
// multiplier plots clip their bands there and say so).
inline constexpr double kIntervalClip = 4.0;

}  // namespace deepladder::plots
