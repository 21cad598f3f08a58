// The workbench's own scheduler: core/scheduler's Scheduler over the database's run queue
// (storage::SqliteRunStore), on a QThread inside the GUI, under the same per-database lock as
// `deepladder run` (scheduler::SchedulerLock), so a headless scheduler and the window never both
// own one database. Ladders asked for are run one after another, each with the resources of its
// stored spec; the scheduler's events reach the GUI thread as queued signals (live progress).
// stop() ends it cleanly: running workers are stopped and their runs left interrupted
// (resumable); the lock is released once the thread has ended.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <set>

class QThread;

namespace deepladder::scheduler {
class Scheduler;
class SchedulerLock;
}  // namespace deepladder::scheduler

namespace deepladder::ui {

// $DEEPLADDER_WORKER, else deepladder-worker beside this program.
QString workerProgramPath();
// $DEEPLADDER_CLI, else the `deepladder` command beside this program (for the hand-off).
QString cliProgramPath();

class InProcessScheduler : public QObject {
  Q_OBJECT
 public:
  InProcessScheduler(QString db_path, QString worker_path, QObject* parent = nullptr);
  ~InProcessScheduler() override;  // stop() and wait

  // Runs the ladder's queued and interrupted runs: queued behind the ladder in progress, or on a
  // new thread after taking the lock. Throws UserError when another scheduler (a headless
  // `deepladder run`, say) holds the database.
  void runLadder(int64_t ladder_id);
  // Parses a ladder spec (UserError with the CLI's message), puts it into the database (runs in
  // <db dir>/deepladder-work, as `deepladder run` does) under the lock, then runs it as
  // runLadder does; returns the ladder's id and says what was queued in `summary`. UserError as
  // above when the lock is held.
  int64_t enqueueAndRun(const QString& toml, const QString& source_name,
                        QString* summary = nullptr);
  // True from runLadder() until the thread has ended and released the lock.
  bool isRunning() const;
  // Runs being trained right now.
  int activeRuns() const { return active_runs_.load(); }
  // Asks the thread to stop (running runs end interrupted); returns at once.
  void stop();
  // Waits up to `ms` for the thread to end; true when it has (or never ran).
  bool wait(int ms);
  // Arguments of the `deepladder resume` that carries on what this scheduler ran: the ladder
  // (by hash) when it ran one, every resumable ladder when it ran several.
  QStringList resumeArguments() const;

 signals:
  void runLaunched(qint64 run_id, QString where);
  // Values absent from the line are NaN.
  void runMetric(qint64 run_id, qint64 step, qint64 tokens, double train_loss, double val_loss,
                 double tokens_per_s);
  // The status the run was settled with, as stored ("queued" for an attempt that is retried).
  void runSettled(qint64 run_id, QString status);
  // The thread ended and the lock is released; `error` is "" unless something failed.
  void stopped(QString error);

 private:
  void threadMain();
  void onThreadFinished();
  void takeLock();  // ends a thread that stopped taking ladders, then holds the lock
  QString db_path_;
  QString worker_path_;
  std::unique_ptr<scheduler::SchedulerLock> lock_;
  QThread* thread_ = nullptr;
  int thread_generation_ = 0;  // a finished signal of an older thread is ignored
  mutable std::mutex mutex_;
  std::deque<int64_t> ladders_;              // guarded by mutex_
  std::set<int64_t> session_ladders_;        // GUI thread: ladders asked for since the last start
  bool accepting_ = false;                   // guarded: the thread will still take ladders
  bool stop_requested_ = false;              // guarded
  scheduler::Scheduler* current_ = nullptr;  // guarded: the scheduler now running
  std::atomic<int> active_runs_{0};
  QString error_;  // written by the thread before it ends
};

}  // namespace deepladder::ui
