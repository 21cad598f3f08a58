// Writing a plot to a file, the format chosen by the extension: .png (raster, 2x for sharp
// text), .svg (vector, through QSvgGenerator: QCustomPlot has no SVG writer) or .pdf (vector).
// Works off screen: the plot widget need not be shown.
#pragma once

#include <QString>

class QCustomPlot;

namespace deepladder::plots {

// Throws UserError for an unknown extension or a file that cannot be written.
void savePlot(QCustomPlot& plot, const QString& path, int width = 960, int height = 600);

}  // namespace deepladder::plots
