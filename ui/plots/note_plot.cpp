// An empty plot that says why (see note_plot.h).
#include "ui/plots/note_plot.h"

#include <qcustomplot.h>

#include "ui/plots/plot_style.h"

namespace deepladder::plots {

void drawNote(QCustomPlot& plot, const NotePlotInput& input) {
  plot.clearPlottables();
  plot.clearItems();
  preparePlot(plot, input.title, input.x_label, input.y_label);
  auto* text = new QCPItemText(&plot);
  text->position->setType(QCPItemPosition::ptAxisRectRatio);
  text->position->setCoords(0.5, 0.5);
  text->setColor(plot.xAxis->labelColor());
  text->setText(input.note);
  plot.replot();
}

}  // namespace deepladder::plots
