// Shared look of every deepladder plot: series colours, fonts, axis labels, log axes with
// powers-of-ten ticks, and the legend in its own column to the right so it never covers data.
#pragma once

#include <QColor>
#include <QString>

class QCustomPlot;
class QCPAxis;

namespace deepladder::plots {

// Colour of the index-th series (a colour-blind-friendly ten-colour cycle).
QColor seriesColor(int index);
// The same colour with alpha (0..255), for faint raw curves and bands.
QColor faded(const QColor& color, int alpha);

// Clears the plot and applies fonts, margins, grid, axis labels and an optional title.
void preparePlot(QCustomPlot& plot, const QString& title, const QString& x_label,
                 const QString& y_label);
// Log scale with ticks at powers of ten, labelled 10^n (superscript).
void setLogAxis(QCPAxis& axis);
void setLinearAxis(QCPAxis& axis);
// Moves the legend into a column right of the axis rect (shown only when it has items).
void placeLegendRight(QCustomPlot& plot);
// Legend inside the axis rect at `corner` (for plots whose data leaves that corner empty),
// on a translucent background.
void placeLegendInside(QCustomPlot& plot, Qt::Alignment corner);

// Compact number for read-outs and legends: 1.23e+20 -> "1.23e20", 0.5 -> "0.5".
QString compactNumber(double value, int precision = 3);

}  // namespace deepladder::plots
