// The workbench in a real X server: starts Xvfb (Debian's xvfb) on a free display, opens the
// main window on the fixture database, visits every view, exports a PNG and an SVG, and saves
// a screenshot of each view to ${build}/tests/ui/screenshots/<view>.png for a human to look at.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QApplication>
#include <QFileInfo>
#include <QPixmap>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <filesystem>

#include "tests/ui/fixture_database.h"
#include "ui/workbench/compare_view.h"
#include "ui/workbench/frontier_view.h"
#include "ui/workbench/main_window.h"

namespace deepladder::ui {
namespace {

TEST(Xvfb, MainWindowVisitsEveryViewAndSavesScreenshots) {
  // A display number nobody uses (lock file absent).
  int display = 91;
  while (QFileInfo::exists(QString("/tmp/.X%1-lock").arg(display)) && display < 140) ++display;
  QProcess xvfb;
  xvfb.start(XVFB_EXECUTABLE,
             {QString(":%1").arg(display), "-screen", "0", "1400x900x24", "-nolisten", "tcp"});
  ASSERT_TRUE(xvfb.waitForStarted(5000)) << "cannot start Xvfb";
  for (int i = 0; i < 100 && !QFileInfo::exists(QString("/tmp/.X11-unix/X%1").arg(display)); ++i)
    QTest::qSleep(50);
  qputenv("DISPLAY", QByteArray(":") + QByteArray::number(display));
  qputenv("QT_QPA_PLATFORM", "xcb");
  int argc = 1;
  char name[] = "ui_xvfb_tests";
  char* argv[] = {name, nullptr};
  {
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName("deepladder-test");
    QTemporaryDir dir;
    const QString db = dir.filePath("fixture.db");
    testing::buildFixtureDatabase(db.toStdString());
    const std::string shots = std::string(DEEPLADDER_BINARY_DIR) + "/tests/ui/screenshots";
    std::filesystem::create_directories(shots);

    MainWindow window;
    window.resize(1280, 820);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    ASSERT_TRUE(window.openDatabase(db));
    window.compare()->setCheckedRuns({1, 2, 3, 4, 5});
    const char* names[] = {"runs", "compare", "frontier", "lens", "serial_task", "designer"};
    for (int v = 0; v < MainWindow::kViewCount; ++v) {
      window.showView(static_cast<MainWindow::View>(v));
      if (v == MainWindow::kFrontier) window.frontier()->fitNow(/*blocking=*/true);
      // Let background loads (poller, curves) arrive and the view lay out.
      for (int i = 0; i < 30; ++i) {
        QTest::qWait(50);
        QApplication::processEvents();
      }
      const QPixmap shot = window.grab();
      const QString path = QString::fromStdString(shots + "/" + names[v] + ".png");
      ASSERT_TRUE(shot.save(path)) << path.toStdString();
      EXPECT_GT(QFileInfo(path).size(), 5000) << names[v];
      if (v == MainWindow::kCompare) EXPECT_GE(window.compare()->plot()->graphCount(), 5);
    }
    window.showView(MainWindow::kFrontier);
    const QString png = QString::fromStdString(shots + "/export_frontier.png");
    const QString svg = QString::fromStdString(shots + "/export_frontier.svg");
    window.exportPlot(png);
    window.exportPlot(svg);
    EXPECT_GT(QFileInfo(png).size(), 5000);
    EXPECT_GT(QFileInfo(svg).size(), 5000);
    window.showView(MainWindow::kRuns);  // closing asks about the running run: don't close here
  }
  xvfb.terminate();
  xvfb.waitForFinished(3000);
}

}  // namespace
}  // namespace deepladder::ui
