// The sweep plot: for one arm of a ladder with a sweep, the mean final validation loss over seeds
// against the swept option's value, one line per size (and per value of any further swept
// option), from the envelope the fits use (fitting/sweep_envelope.h). The point each rung's fit
// uses is filled; a ring marks one at the edge of the values tried (extend the sweep); a diamond
// marks each rung's fitted optimum (fitting/lr_transfer.h: the quadratic in ln value) with its 95%
// interval as a bar, when the input carries them. The value
// axis is logarithmic (base 2) when the values are positive and span a factor of 4 or more.
#pragma once

#include <QString>
#include <string>
#include <vector>

#include "fitting/fit_types.h"
#include "fitting/lr_transfer.h"

class QCustomPlot;

namespace deepladder::plots {

struct SweepPlotInput {
  std::vector<fitting::SweepRungChoice> rungs;  // sweepEnvelope(table).rungs
  std::vector<fitting::RungOptimum> optima;     // learningRateTransfer(table).rungs; may be empty
  std::string arm;                              // the arm drawn; "" = the first of `rungs`
  QString title;                                // "" = none
};

// The arms of `rungs`, in order of first appearance.
std::vector<std::string> sweepPlotArms(const std::vector<fitting::SweepRungChoice>& rungs);

void drawSweep(QCustomPlot& plot, const SweepPlotInput& input);

}  // namespace deepladder::plots
