// The window's own scheduler against the real worker (offscreen): a tiny ladder queued from the
// designer's text runs in-process; its rows reach "finished" in the run monitor's model, fed
// live by the scheduler's signals; while it runs, the database's scheduler lock is held (a
// headless `deepladder run` would be refused); a cancelled run ends cancelled; stopping the
// scheduler leaves the running run interrupted and the lock free; Resume finishes the ladder;
// Retry queues the cancelled run again, and closing with "keep running" hands it to a detached
// headless `deepladder resume` that finishes it while the monitor follows by polling.
#include "ui/workbench/in_process_scheduler.h"

#include <gtest/gtest.h>

#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <chrono>
#include <optional>

#include "core/errors.h"
#include "core/scheduler/scheduler_lock.h"
#include "storage/database.h"
#include "tests/ui/scheduler_test_support.h"
#include "ui/workbench/main_window.h"
#include "ui/workbench/run_monitor_view.h"
#include "ui/workbench/run_table_model.h"

namespace deepladder::ui {
namespace {

using namespace std::chrono_literals;
using testing::waitFor;

// How long a run of the tiny ladder may take to get somewhere with the real worker: a hang guard
// (seconds on an idle machine; 180 s was not enough at a load of 15 on 2 cores).
constexpr auto kRunTimeout = 600s;

std::optional<RunStatus> statusInModel(RunMonitorView& runs, int64_t id) {
  const int row = runs.model()->rowOfRun(id);
  if (row < 0) return std::nullopt;
  return runs.model()->runAt(row)->run.status;
}

int countInModel(RunMonitorView& runs, RunStatus status) {
  int n = 0;
  for (int r = 0; r < runs.model()->rowCount(); ++r)
    n += runs.model()->runAt(r)->run.status == status;
  return n;
}

bool lockIsFree(const std::string& db) {
  try {
    scheduler::SchedulerLock lock(db);
    return true;
  } catch (const UserError&) {
    return false;
  }
}

TEST(InProcessScheduler, RunsATinyLadderLiveCancelsStopsResumesAndRetries) {
  testing::startTestApplication();
  qputenv("DEEPLADDER_WORKER", DEEPLADDER_BINARY_DIR "/bin/deepladder-worker");
  qputenv("DEEPLADDER_CLI", DEEPLADDER_BINARY_DIR "/bin/deepladder");
  QTemporaryDir dir;
  const std::string db = testing::emptyDatabase(dir, "runs.db").toStdString();

  MainWindow window;
  ASSERT_TRUE(window.openDatabase(QString::fromStdString(db), /*quiet=*/true));
  RunMonitorView& runs = *window.runs();
  QSignalSpy metrics(runs.scheduler(), &InProcessScheduler::runMetric);
  ASSERT_TRUE(window.runLadderText(testing::tinyLadder("gui-tiny"), /*quiet=*/true));
  EXPECT_TRUE(window.statusBar()->currentMessage().contains("\"gui-tiny\": 3 run(s) queued"))
      << window.statusBar()->currentMessage().toStdString();
  ASSERT_TRUE(runs.ownsScheduler());
  EXPECT_FALSE(lockIsFree(db)) << "the window must hold the database's scheduler lock";
  EXPECT_TRUE(runs.schedulerOwnerText().contains("this window"))
      << runs.schedulerOwnerText().toStdString();

  // Rows appear (queued), then the first run (biggest first: "c") finishes, fed live.
  ASSERT_TRUE(waitFor([&] { return runs.model()->rowCount() == 3; }, 30s));
  ASSERT_TRUE(waitFor([&] { return countInModel(runs, RunStatus::kFinished) >= 1; }, kRunTimeout))
      << "no run finished; worker: " << DEEPLADDER_BINARY_DIR "/bin/deepladder-worker";
  EXPECT_GT(metrics.count(), 0) << "the monitor was not fed by the scheduler's signals";

  // Cancel a run that has not started yet.
  int64_t cancelled = 0;
  for (int r = 0; r < runs.model()->rowCount() && !cancelled; ++r)
    if (runs.model()->runAt(r)->run.status == RunStatus::kQueued)
      cancelled = runs.model()->runAt(r)->run.id;
  ASSERT_NE(cancelled, 0) << "expected a queued run behind the running one";
  runs.cancelRuns({cancelled});
  ASSERT_TRUE(
      waitFor([&] { return statusInModel(runs, cancelled) == RunStatus::kCancelled; }, 30s));

  // Let the next run get past a checkpoint, then stop the scheduler: the run ends interrupted
  // (resumable) and the lock is released.
  int64_t running = 0;
  ASSERT_TRUE(waitFor(
      [&] {
        for (int r = 0; r < runs.model()->rowCount(); ++r) {
          const auto& run = runs.model()->runAt(r)->run;
          if (run.status == RunStatus::kRunning && run.step >= 30) running = run.id;
        }
        return running != 0;
      },
      kRunTimeout));
  ASSERT_TRUE(window.stopOwnScheduler(/*hand_off=*/false));
  EXPECT_FALSE(runs.ownsScheduler());
  EXPECT_TRUE(lockIsFree(db));
  {
    auto check = storage::Database::open(db, true);
    EXPECT_EQ(check->run(running)->status, RunStatus::kInterrupted) << check->run(running)->error;
  }

  // Resume: every run but the cancelled one finishes.
  runs.resumeLadders({});
  ASSERT_TRUE(waitFor(
      [&] { return countInModel(runs, RunStatus::kFinished) == 2 && !runs.ownsScheduler(); },
      kRunTimeout));
  EXPECT_EQ(statusInModel(runs, cancelled), RunStatus::kCancelled);
  {
    auto check = storage::Database::open(db, true);
    int64_t resumed_from = -1;
    for (const auto& e : check->events(running))
      if (e.name == "resumed") resumed_from = e.step;
    EXPECT_GT(resumed_from, 0) << "the interrupted run resumes from its last checkpoint";
  }

  // Retry the cancelled run, then close-and-keep-running: the window's scheduler stops and a
  // detached headless `deepladder resume` takes the run over; the monitor follows it by polling
  // and the window cannot start a scheduler of its own meanwhile.
  runs.retryRuns({cancelled});
  ASSERT_TRUE(runs.ownsScheduler());
  ASSERT_TRUE(waitFor([&] { return statusInModel(runs, cancelled) == RunStatus::kRunning; }, 60s));
  const QStringList handed = runs.scheduler()->resumeArguments();
  ASSERT_TRUE(handed.contains("--ladder")) << "the window ran one ladder: hand over just that one";
  ASSERT_TRUE(window.stopOwnScheduler(/*hand_off=*/true));
  EXPECT_FALSE(runs.ownsScheduler());
  // (Watched through the lock file's pid, never by probing the lock: a probe at the wrong
  // moment would turn the headless resume away.)
  ASSERT_TRUE(waitFor([&] { return runs.schedulerOwnerText().contains("another process"); }, 30s))
      << "no headless scheduler took over: " << runs.schedulerOwnerText().toStdString();
  const int64_t ladder = *storage::Database::open(db, true)->run(cancelled)->ladder_id;
  EXPECT_THROW(runs.scheduler()->runLadder(ladder), UserError)
      << "the headless scheduler owns the database";
  EXPECT_FALSE(runs.ownsScheduler());
  ASSERT_TRUE(waitFor([&] { return countInModel(runs, RunStatus::kFinished) == 3; }, kRunTimeout));
  ASSERT_TRUE(waitFor([&] { return lockIsFree(db); }, 30s)) << "the headless resume did not end";
  auto check = storage::Database::open(db, true);
  EXPECT_EQ(check->integrityCheck(), "ok");
  for (const auto& s : check->listRuns()) {
    EXPECT_EQ(s.run.status, RunStatus::kFinished) << s.run.name << ": " << s.run.error;
    EXPECT_GT(s.run.step, 0);
  }
}

}  // namespace
}  // namespace deepladder::ui
