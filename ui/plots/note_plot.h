// A plot with nothing to draw yet that says why: its title and axis labels as the full plot
// would have them, and one centred line of text ("no fit yet: the baseline, vanilla, has 0 of 5
// rungs finished"), so a view never shows bare axes without a reason.
#pragma once

#include <QString>

class QCustomPlot;

namespace deepladder::plots {

struct NotePlotInput {
  QString title;
  QString x_label;
  QString y_label;
  QString note;
};

void drawNote(QCustomPlot& plot, const NotePlotInput& input);

}  // namespace deepladder::plots
