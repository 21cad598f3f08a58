// The workbench in a real X server: starts Xvfb (Debian's xvfb) on a free display, opens the
// main window on the fixture database, visits every view, exports a PNG and an SVG, and saves
// a screenshot of each view to ${build}/tests/ui/screenshots/<view>.png for a human to look at,
// plus the frontier of a noisy import (bootstrap bands), the end of the designer's form, and the
// frontier under a dark palette, and a running ladder's frontier with its projection history and
// suggestions.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QApplication>
#include <QFileInfo>
#include <QPalette>
#include <QPixmap>
#include <QProcess>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <tuple>

#include "storage/database.h"
#include "tests/ui/fixture_database.h"
#include "ui/workbench/compare_view.h"
#include "ui/workbench/frontier_view.h"
#include "ui/workbench/ladder_designer_view.h"
#include "ui/workbench/main_window.h"
#include "ui/workbench/suggestions_panel.h"

#undef slots  // Qt's keyword; core/ladder/ladder_spec.h (below) has a field of that name
#include "tests/ui/live_fixture.h"

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
    {
      // An imported ladder with seed noise (two seeds per rung, +-1% apart, the design doc's
      // exponents), so the bootstrap bands have a width to look at.
      auto store = storage::Database::open(db.toStdString());
      std::vector<storage::ExternalPoint> points;
      for (auto [arm, A, g] : {std::tuple{"vanilla", 1.2, 0.111}, {"growth", 1.15, 0.117}})
        for (int rung = 0; rung < 6; ++rung)
          for (double wiggle : {0.01, -0.01}) {
            const double c = 1e17 * std::pow(10.0, 0.5 * rung);
            const double noise = wiggle * (rung % 2 ? 1.0 : 0.4);
            points.push_back({"noisy-import",
                              arm,
                              c,
                              (1.8 + A * std::pow(c / 1e18, -g)) * (1 + noise),
                              {},
                              {},
                              {}});
          }
      store->replaceExternalPoints("noisy-import", points);
    }
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
      if (v == MainWindow::kCompare) {
        EXPECT_GE(window.compare()->plot()->graphCount(), 5);
      }
    }
    // The frontier of the noisy import, with visible bands.
    window.showView(MainWindow::kFrontier);
    window.frontier()->sourceChoice()->setCurrentText("noisy-import");
    window.frontier()->fitNow(/*blocking=*/true);
    ASSERT_TRUE(window.frontier()->result().has_value());
    ASSERT_TRUE(window.grab().save(QString::fromStdString(shots + "/frontier_bands.png")));
    // The designer's form further down (budget, training, resources).
    window.showView(MainWindow::kDesigner);
    if (auto* scroll = window.designer()->findChild<QScrollArea*>())
      scroll->verticalScrollBar()->setValue(scroll->verticalScrollBar()->maximum());
    QTest::qWait(100);
    ASSERT_TRUE(window.grab().save(QString::fromStdString(shots + "/designer_form_end.png")));
    // A dark system palette: the plots follow it.
    {
      QPalette dark;
      dark.setColor(QPalette::Window, QColor(45, 45, 48));
      dark.setColor(QPalette::WindowText, QColor(225, 225, 225));
      dark.setColor(QPalette::Base, QColor(30, 30, 32));
      dark.setColor(QPalette::AlternateBase, QColor(40, 40, 44));
      dark.setColor(QPalette::Text, QColor(225, 225, 225));
      dark.setColor(QPalette::Button, QColor(55, 55, 58));
      dark.setColor(QPalette::ButtonText, QColor(225, 225, 225));
      QApplication::setPalette(dark);
      window.showView(MainWindow::kFrontier);
      QTest::qWait(200);
      ASSERT_TRUE(window.grab().save(QString::fromStdString(shots + "/frontier_dark.png")));
      EXPECT_EQ(window.frontier()->frontierPlot()->xAxis->tickLabelColor(), QColor(225, 225, 225));
      QApplication::setPalette(QPalette());
    }
    // A ladder still running (tests/ui/live_fixture.h): frontier, multiplier, the history of
    // its projection and the suggestions of what to run next, filled.
    {
      const QString live_db = dir.filePath("live.db");
      testing::buildLiveLadder(live_db.toStdString(), dir.filePath("work").toStdString());
      MainWindow live;
      live.resize(1400, 880);
      live.show();
      ASSERT_TRUE(QTest::qWaitForWindowExposed(&live));
      ASSERT_TRUE(live.openDatabase(live_db));
      live.showView(MainWindow::kFrontier);
      live.frontier()->reloadSourcesNow();
      live.frontier()->sourceChoice()->setCurrentText("live");
      live.frontier()->fitNow(/*blocking=*/true);
      live.frontier()->suggestions()->suggestNow(/*blocking=*/true);
      live.frontier()->suggestions()->table()->selectRow(0);
      QTest::qWait(200);
      const QString path = QString::fromStdString(shots + "/frontier_live.png");
      ASSERT_TRUE(live.grab().save(path));
      EXPECT_GT(QFileInfo(path).size(), 5000);
      live.showView(MainWindow::kRuns);
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
