// The compute frontier on log-log axes: each arm's finished runs (final loss vs training FLOPs;
// in a ladder with a sweep, the points its fit used, fitting/sweep_envelope.h, the others hollow
// and faint),
// its fitted curve L(C) = E + A (C/C0)^-gamma across and a little beyond its rungs with the
// curve's bootstrap band faintly behind it (fitting::frontierBand), the baseline drawn heavier and
// named as such, the shared irreducible loss E as a dashed line, and a legend line naming the
// estimator that made the fits. Arms with points but no fit (a ladder still running, or a fit
// that left them out) show their points hollow, named "not fitted yet"; with no fit at all
// (result.arms empty, result.baseline set) the plot is every measured point.
#pragma once

#include <QString>

#include "fitting/fit_types.h"

class QCustomPlot;

namespace deepladder::plots {

struct FrontierPlotInput {
  fitting::ResultsTable table;     // every measured point (the fitted ones and the rest)
  fitting::FrontierResult result;  // fitFrontier(table, ...)
  QString title;                   // "" = none
};

void drawFrontier(QCustomPlot& plot, const FrontierPlotInput& input);

}  // namespace deepladder::plots
