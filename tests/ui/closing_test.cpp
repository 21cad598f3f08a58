// Closing the main window never blocks it: with a long bootstrap fit in flight, close() returns
// at once and the fit is aborted (the thread pool is free soon after, so the program can end);
// with the window's own scheduler busy on a worker that takes seconds to stop, close() hides the
// window and returns at once, and the window closes for good once the scheduler has stopped.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <QTimer>
#include <chrono>

#include "fitting/frontier_estimator.h"
#include "tests/ui/fixture_database.h"
#include "tests/ui/scheduler_test_support.h"
#include "ui/workbench/frontier_view.h"
#include "ui/workbench/in_process_scheduler.h"
#include "ui/workbench/main_window.h"
#include "ui/workbench/run_monitor_view.h"

namespace deepladder::ui {
namespace {

using namespace std::chrono_literals;
using testing::waitFor;

constexpr qint64 kPromptMs = 1000;

TEST(Closing, AFitInFlightNeitherBlocksTheWindowNorTheProgramsEnd) {
  testing::startTestApplication();
  QTemporaryDir dir;
  const QString db = dir.filePath("fixture.db");
  testing::buildFixtureDatabase(db.toStdString());
  MainWindow window;
  window.show();
  ASSERT_TRUE(window.openDatabase(db, true));
  FrontierView& frontier = *window.frontier();
  ASSERT_TRUE(waitFor([&] { return !frontier.sourceChoice()->currentText().isEmpty(); }, 10s));
  // The robust estimator solves every resample with Ceres: 10,000 of them take minutes.
  frontier.estimatorChoice()->setCurrentIndex(
      frontier.estimatorChoice()->findData(static_cast<int>(fitting::FrontierEstimator::Robust)));
  frontier.bootstrapChoice()->setValue(10000);
  frontier.fitNow();
  QTest::qWait(300);
  ASSERT_TRUE(frontier.fitting());
  QElapsedTimer t;
  t.start();
  EXPECT_TRUE(window.close());
  EXPECT_LT(t.elapsed(), kPromptMs);
  EXPECT_FALSE(frontier.fitting());
  // The aborted fit leaves the pool: QApplication's exit would wait for it otherwise.
  EXPECT_TRUE(QThreadPool::globalInstance()->waitForDone(3000));
}

// A worker that ignores SIGTERM and ends after 4 s: the scheduler takes that long to stop.
QString writeSlowWorker(const QTemporaryDir& dir) {
  const QString path = dir.filePath("slow-worker.sh");
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write("#!/bin/sh\ntrap '' TERM\nsleep 4\n");
  f.close();
  f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  return path;
}

TEST(Closing, ABusySchedulerStopsBehindTheWindowInsteadOfBlockingIt) {
  testing::startTestApplication();
  QTemporaryDir dir;
  qputenv("DEEPLADDER_WORKER", writeSlowWorker(dir).toUtf8());
  const QString db = testing::emptyDatabase(dir, "runs.db");
  MainWindow window;
  window.show();
  ASSERT_TRUE(window.openDatabase(db, true));
  ASSERT_TRUE(window.runLadderText(testing::tinyLadder("slow-stop"), true));
  RunMonitorView& runs = *window.runs();
  ASSERT_TRUE(waitFor([&] { return runs.scheduler()->activeRuns() > 0; }, 20s));
  QElapsedTimer after_answer;
  bool answered = false;
  QTimer::singleShot(100, &window, [&] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box) return;
    for (QAbstractButton* b : box->buttons())
      if (b->text() == QObject::tr("Stop them")) {
        answered = true;
        after_answer.start();
        b->click();
      }
  });
  EXPECT_FALSE(window.close()) << "closes for good only once the scheduler has stopped";
  ASSERT_TRUE(answered);
  EXPECT_LT(after_answer.elapsed(), kPromptMs);
  EXPECT_FALSE(window.isVisible());
  EXPECT_TRUE(window.closing());
  EXPECT_TRUE(runs.ownsScheduler()) << "the worker takes 4 s to stop";
  ASSERT_TRUE(waitFor([&] { return !runs.ownsScheduler(); }, 20s));
  EXPECT_TRUE(waitFor([&] { return !window.closing(); }, 2s)) << "closed once stopped";
  qunsetenv("DEEPLADDER_WORKER");
}

}  // namespace
}  // namespace deepladder::ui
