// The GUI thread runs no SQLite statement while the Lens and Serial-task views load a populated
// database: storage's query hook (storage/query_thread_guard.h) counts the statements started on
// the GUI thread and elsewhere, in any build type. Also: a newer request supersedes one still
// loading (only the newest result is drawn and announced).
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QCoreApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <atomic>

#include "storage/query_thread_guard.h"
#include "tests/ui/fixture_database.h"
#include "ui/plots/offscreen_app.h"
#include "ui/workbench/compare_view.h"
#include "ui/workbench/gui_query_guard.h"
#include "ui/workbench/lens_view.h"
#include "ui/workbench/main_window.h"
#include "ui/workbench/run_monitor_view.h"
#include "ui/workbench/run_table_model.h"
#include "ui/workbench/serial_task_view.h"

namespace deepladder::ui {
namespace {

std::atomic<int> gui_thread_statements{0};
std::atomic<int> other_statements{0};

// Counts statements by thread while alive.
struct CountingGuard {
  CountingGuard() {
    gui_thread_statements = 0;
    other_statements = 0;
    storage::setQueryThreadGuard([] {
      if (QThread::currentThread() == QCoreApplication::instance()->thread())
        ++gui_thread_statements;
      else
        ++other_statements;
    });
  }
  ~CountingGuard() { storage::setQueryThreadGuard({}); }
};

template <typename View>
bool waitUntilLoaded(View& view) {
  for (int i = 0; i < 2000 && view.loading(); ++i) QTest::qWait(10);
  return !view.loading();
}

class GuiThreadQueries : public ::testing::Test {
 protected:
  void SetUp() override {
    plots::ensureGuiApplication();
    ASSERT_TRUE(dir_.isValid());
    path_ = dir_.filePath("fixture.db");
    testing::buildFixtureDatabase(path_.toStdString());
  }
  QTemporaryDir dir_;
  QString path_;
};

TEST_F(GuiThreadQueries, LensAndSerialTaskViewsLoadWithoutQueriesOnTheGuiThread) {
  CountingGuard guard;
  LensView lens;
  SerialTaskView serial;
  lens.setDatabase(path_);
  serial.setDatabase(path_);
  ASSERT_TRUE(waitUntilLoaded(lens));
  ASSERT_TRUE(waitUntilLoaded(serial));
  // Another run, and ε changed (a redraw from what was loaded).
  lens.showRun(2);
  serial.showRun(2);
  ASSERT_TRUE(waitUntilLoaded(lens));
  ASSERT_TRUE(waitUntilLoaded(serial));
  lens.reloadRuns();
  ASSERT_TRUE(waitUntilLoaded(lens));
  EXPECT_EQ(gui_thread_statements.load(), 0);
  EXPECT_GT(other_statements.load(), 10) << "the hook must see the views' queries";
  EXPECT_GE(lens.profilePlot()->graphCount(), 3);
  EXPECT_EQ(serial.heatmap()->plottableCount(), 1);
}

TEST_F(GuiThreadQueries, TheHookSeesStatementsOnTheCallingThread) {
  CountingGuard guard;
  testing::buildFixtureDatabase(dir_.filePath("second.db").toStdString());
  EXPECT_GT(gui_thread_statements.load(), 0);
}

TEST_F(GuiThreadQueries, ANewerRequestSupersedesOneStillLoading) {
  LensView lens;
  QSignalSpy loaded(&lens, &LensView::loaded);
  lens.setDatabase(path_);
  lens.showRun(1);
  lens.showRun(3);
  ASSERT_TRUE(waitUntilLoaded(lens));
  QTest::qWait(20);
  EXPECT_EQ(loaded.count(), 1) << "only the newest request's rows are drawn";
  SerialTaskView serial;
  QSignalSpy serial_loaded(&serial, &SerialTaskView::loaded);
  serial.setDatabase(path_);
  serial.reloadRuns();
  ASSERT_TRUE(waitUntilLoaded(serial));
  QTest::qWait(20);
  EXPECT_EQ(serial_loaded.count(), 1);
}

// What deepladder-gui asserts in debug builds (gui_query_guard.h), checked here in any build: the
// whole window, opened on a database and shown every view, runs no GUI-thread statement outside
// the marked accesses (File > Open's check).
TEST_F(GuiThreadQueries, TheWindowRunsNoUnmarkedQueryOnTheGuiThread) {
  static std::atomic<int> unmarked{0};
  unmarked = 0;
  storage::setQueryThreadGuard([] {
    if (queryWouldStallGui()) ++unmarked;
  });
  {
    MainWindow window;
    window.show();
    ASSERT_TRUE(window.openDatabase(path_, true));
    window.compare()->setCheckedRuns({1, 2});
    for (int v = 0; v < MainWindow::kViewCount; ++v) {
      window.showView(static_cast<MainWindow::View>(v));
      QTest::qWait(150);
    }
    for (int i = 0; i < 200 && window.runs()->model()->rowCount() < 9; ++i) QTest::qWait(20);
    EXPECT_EQ(window.runs()->model()->rowCount(), 9);
    window.lens()->reloadRuns();
    window.serialTask()->reloadRuns();
    window.compare()->reloadRuns();
    ASSERT_TRUE(waitUntilLoaded(*window.lens()));
    ASSERT_TRUE(waitUntilLoaded(*window.serialTask()));
    QTest::qWait(300);
  }
  storage::setQueryThreadGuard({});
  EXPECT_EQ(unmarked.load(), 0);
}

}  // namespace
}  // namespace deepladder::ui
