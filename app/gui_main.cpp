// `deepladder-gui [runs.db]`: the desktop workbench. Wiring only: the window lives in ui/.
// Opens the given database, else the last one (QSettings), else starts empty (File > Open).
#include <QApplication>
#include <QSettings>

#include "ui/workbench/gui_query_guard.h"
#include "ui/workbench/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName("deepladder");
  QCoreApplication::setApplicationName("deepladder-gui");
  QCoreApplication::setApplicationVersion("0.1.0");
  deepladder::ui::installGuiThreadQueryGuard();  // debug builds: no SQLite on this thread
  deepladder::ui::MainWindow window;
  const QStringList args = app.arguments();
  if (args.size() > 1) {
    window.openDatabase(args.at(1));
  } else {
    const QString last = QSettings().value("database/last").toString();
    if (!last.isEmpty()) window.openDatabase(last, /*quiet=*/true);
  }
  window.show();
  return app.exec();
}
