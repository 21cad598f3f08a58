// Keeping a legend drawn inside its axis rect readable when the plot is narrow (a workbench panel
// beside two others): after every layout the legend's font shrinks, half a point at a time down to
// 6.5 pt, until the legend fits the rect's width; legend lines marked optional (the estimator's
// name, what the shading means: context the workbench also prints beside its plots) leave the
// legend, last first, when even the smallest font does not fit. Widening the plot brings the font
// and the lines back.
#pragma once

class QCustomPlot;
class QCPAbstractPlottable;

namespace deepladder::plots {

void markLegendLineOptional(QCPAbstractPlottable& plottable);

// Installs the fitting on `plot` (once; later calls do nothing). placeLegendInside calls it.
void fitLegendToAxisRect(QCustomPlot& plot);

}  // namespace deepladder::plots
