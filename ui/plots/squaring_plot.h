// A squaring ladder (task = "squaring") against training compute, one colour per arm: OOD exact
// match on the left axis (filled circles, with the fitted line a + b log10(C / C0) across the
// arm's runs) and Max T on the right axis (seen moduli: squares joined by a solid line; unseen
// moduli: open triangles, dashed). Compute on a log axis. An arm whose runs are not admissible
// under the benchmark's rules (core/options/admissibility.h) says so in its legend entry.
#pragma once

#include <QString>

#include "fitting/squaring_trend.h"

class QCustomPlot;

namespace deepladder::plots {

struct SquaringPlotInput {
  fitting::SquaringLadderSummary summary;  // fitting::summarizeSquaringLadder
  QString title;                           // "" = none
};

void drawSquaringLadder(QCustomPlot& plot, const SquaringPlotInput& input);

}  // namespace deepladder::plots
