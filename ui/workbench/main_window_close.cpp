// Closing the main window without blocking it: runs of the window's own scheduler are asked what
// to do (keep running: a headless `deepladder resume` takes them over; stop: they end
// interrupted, resumable), then the window hides at once while the scheduler stops behind it and
// closes for good when it has; a fit in flight is aborted; runs of another scheduler are left to
// it or cancelled by a detached `deepladder cancel all`. Nothing here waits on a thread.
#include <QApplication>
#include <QCloseEvent>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

#include "ui/workbench/frontier_view.h"
#include "ui/workbench/in_process_scheduler.h"
#include "ui/workbench/main_window.h"
#include "ui/workbench/run_monitor_view.h"

namespace deepladder::ui {
namespace {

constexpr int kStopDeadlineMs = 60000;  // then the window comes back and says so

enum class CloseChoice { kKeepRunning, kStop, kCancel };

// Asks whether running runs keep going after the window closes.
CloseChoice askAboutRunningRuns(QWidget* parent, const QString& text) {
  QMessageBox box(QMessageBox::Question, QObject::tr("Runs are still running"), text,
                  QMessageBox::NoButton, parent);
  QPushButton* keep = box.addButton(QObject::tr("Keep running"), QMessageBox::AcceptRole);
  QPushButton* stop = box.addButton(QObject::tr("Stop them"), QMessageBox::DestructiveRole);
  box.addButton(QMessageBox::Cancel);
  box.setDefaultButton(keep);
  box.exec();
  if (box.clickedButton() == keep) return CloseChoice::kKeepRunning;
  if (box.clickedButton() == stop) return CloseChoice::kStop;
  return CloseChoice::kCancel;
}

}  // namespace

void MainWindow::closeEvent(QCloseEvent* event) {
  const int running = runs_->runningCount();
  if (closing_) {
    // Hidden while the scheduler stops: close for good only once it has.
    if (runs_->ownsScheduler()) {
      event->ignore();
      return;
    }
  } else if (runs_->ownsScheduler()) {
    const CloseChoice choice = askAboutRunningRuns(
        this, tr("This window is running %n run(s). Keep them running in the background "
                 "(a headless `deepladder resume` takes over from their last checkpoints) "
                 "or stop them (they can be resumed later)?",
                 "", std::max(running, runs_->scheduler()->activeRuns())));
    event->ignore();
    if (choice != CloseChoice::kCancel) beginClosing(choice == CloseChoice::kKeepRunning);
    return;
  } else if (const qint64 pid = runs_->otherSchedulerPid(); running > 0 && pid > 0) {
    // (Runs marked running without a live scheduler are left over from one that stopped:
    // nothing runs, so there is nothing to ask.)
    const CloseChoice choice = askAboutRunningRuns(
        this, tr("%n run(s) are running. They belong to a separate deepladder scheduler "
                 "(pid %1) and can keep going without this window.",
                 "", running)
                  .arg(pid));
    if (choice == CloseChoice::kCancel) {
      event->ignore();
      return;
    }
    if (choice == CloseChoice::kStop)
      QProcess::startDetached(cliProgramPath(), {"cancel", "all", "--db", db_path_});
  }
  frontier_->cancelFit();  // its pool thread would otherwise hold the program's exit
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  settings.setValue("window/tab", tabs_->currentIndex());
  saveLayout(settings);
  closing_ = false;
  event->accept();
}

void MainWindow::beginClosing(bool hand_off) {
  closing_ = true;
  frontier_->cancelFit();
  statusBar()->showMessage(tr("Stopping the runs (they stay resumable)…"));
  connect(
      runs_, &RunMonitorView::schedulerStopped, this,
      [this, hand_off] {
        if (closing_) finishClosing(hand_off);
      },
      Qt::SingleShotConnection);
  runs_->scheduler()->stop();
  hide();  // the window goes now; the scheduler stops behind it
  QTimer::singleShot(kStopDeadlineMs, this, [this] {
    if (!closing_ || !runs_->ownsScheduler()) return;
    closing_ = false;
    show();
    QMessageBox::warning(this, tr("Runs did not stop"),
                         tr("The runs did not stop within a minute; the window stays open."));
  });
}

void MainWindow::finishClosing(bool hand_off) {
  if (hand_off) {
    const QString cli = cliProgramPath();
    if (!QProcess::startDetached(cli, runs_->scheduler()->resumeArguments()))
      QMessageBox::warning(nullptr, tr("Cannot hand the runs over"),
                           tr("Could not start %1. The runs are interrupted; continue them with "
                              "`deepladder resume --db %2`.")
                               .arg(cli, db_path_));
  }
  if (!close() || !QApplication::quitOnLastWindowClosed()) return;
  // Closing a hidden window does not end the program by itself: do it when it was the last.
  for (QWidget* w : QApplication::topLevelWidgets())
    if (w->isVisible() && !w->parentWidget() && w->testAttribute(Qt::WA_QuitOnClose)) return;
  QCoreApplication::quit();
}

}  // namespace deepladder::ui
