// QCustomPlot needs a QApplication. Command-line tools that render plots call
// ensureGuiApplication() first: it returns the running one or creates one that lives until
// exit, on the offscreen platform unless the user chose a platform (QT_QPA_PLATFORM), so no
// display is needed.
#pragma once

namespace deepladder::plots {

void ensureGuiApplication();

}  // namespace deepladder::plots
