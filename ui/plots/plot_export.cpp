// Writing plots to png/svg/pdf (see plot_export.h).
#include "ui/plots/plot_export.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QSvgGenerator>

#include "core/errors.h"
#include "ui/plots/plot_style.h"

namespace deepladder::plots {

namespace {

// Exports are paper-white whatever the screen's theme: the plot is drawn with the light palette
// while it is written, then goes back to the theme's colours.
class LightForExport {
 public:
  explicit LightForExport(QCustomPlot& plot) : plot_(plot), dark_(isDarkPalette(plot.palette())) {
    if (dark_) applyPlotPalette(plot_, lightPalette());
  }
  ~LightForExport() {
    if (!dark_) return;
    applyPlotPalette(plot_, plot_.palette());
    plot_.replot();
  }

 private:
  QCustomPlot& plot_;
  bool dark_;
};

}  // namespace

void savePlot(QCustomPlot& plot, const QString& path, int width, int height) {
  LightForExport light(plot);
  const QString suffix = QFileInfo(path).suffix().toLower();
  const std::string where = path.toStdString();
  bool ok = false;
  if (suffix == QLatin1String("png")) {
    ok = plot.savePng(path, width, height, /*scale=*/2.0);
  } else if (suffix == QLatin1String("pdf")) {
    ok = plot.savePdf(path, width, height, QCP::epNoCosmetic, QStringLiteral("deepladder"));
  } else if (suffix == QLatin1String("svg")) {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(QSize(width, height));
    generator.setViewBox(QRect(0, 0, width, height));
    generator.setTitle(QStringLiteral("deepladder plot"));
    QCPPainter painter;
    if (painter.begin(&generator)) {
      plot.toPainter(&painter, width, height);
      ok = painter.end();
    }
    ok = ok && QFileInfo(path).size() > 0;
  } else {
    throw UserError("--out " + where + ": unknown format '" + suffix.toStdString() +
                    "'. Use a .png, .svg or .pdf file name");
  }
  if (!ok)
    throw UserError("cannot write " + where + ". Check that its folder exists and is writable");
}

}  // namespace deepladder::plots
