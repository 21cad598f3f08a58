// A QApplication for off-screen plotting (see offscreen_app.h).
#include "ui/plots/offscreen_app.h"

#include <QApplication>
#include <cstdlib>

namespace deepladder::plots {

void ensureGuiApplication() {
  if (QCoreApplication::instance()) return;
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 0);
  static int argc = 1;
  static char name[] = "deepladder";
  static char* argv[] = {name, nullptr};
  static QApplication* app = new QApplication(argc, argv);  // lives until exit on purpose
  (void)app;
}

}  // namespace deepladder::plots
