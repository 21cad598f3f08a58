// The scatter of runs (core/scatter_spec.h): one point per run, a summary of a metric against an
// option or a derived quantity (parameters, tokens, FLOPs, tokens per parameter, lr), coloured by
// group, with each group's fitted law (fitting/scatter_law.h) drawn over its points across their x
// range; log or linear axes. Plain data in (storage/scatter_points.h reads it), so the workbench
// and `deepladder plot scatter` draw the same picture.
#pragma once

#include <QString>
#include <string>
#include <vector>

#include "core/scatter_spec.h"
#include "fitting/scatter_law.h"

class QCustomPlot;

namespace deepladder::plots {

struct ScatterPlotInput {
  std::vector<ScatterPoint> points;
  std::vector<std::string> groups;        // colour order; a point's group names one of them
  std::vector<fitting::ScatterLaw> laws;  // one per group, or none
  QString x_label, y_label;
  QString group_by;  // the grouping option, for the legend ("arm")
  QString note;      // under the title: what the laws are (ScatterFit::note)
  bool log_x = true;
  bool log_y = false;
  QString title;
};

// Graphs, in order, per group: its points (named "<group_by>=<group>"), then its law (named
// "<group> fit: <formula>") when it has one.
void drawScatter(QCustomPlot& plot, const ScatterPlotInput& input);

// Points along a fitted law over [x_lo, x_hi] (geometric spacing on a log axis), for the curve.
std::vector<std::pair<double, double>> lawCurve(const fitting::ScatterLaw& law, double x_lo,
                                                double x_hi, bool log_x, int points = 120);

}  // namespace deepladder::plots
