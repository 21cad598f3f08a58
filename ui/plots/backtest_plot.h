// A backtest (fitting/backtest.h) drawn in two panels: left, every held-out rung's predicted loss
// against its measured loss with the prediction's bootstrap interval as an error bar, on the
// diagonal when the fit was right; right, the relative error (predicted - measured) / measured in
// percent against the extrapolation factor (held-out compute / largest compute fitted), one
// colour per arm, so a bias that grows with the distance shows as a slope.
#pragma once

#include <QString>

#include "fitting/backtest.h"

class QCustomPlot;

namespace deepladder::plots {

struct BacktestPlotInput {
  fitting::BacktestResult backtest;
  QString title;  // "" = none
  // For a small pane beside other plots (the workbench): no legend (the arms keep the colours of
  // the frontier plot: the baseline first, then the others by name) and no summary line under
  // the title.
  bool compact = false;
};

void drawBacktest(QCustomPlot& plot, const BacktestPlotInput& input);

}  // namespace deepladder::plots
