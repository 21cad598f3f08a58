// The workbench's in-process scheduler (see in_process_scheduler.h).

#include "ui/workbench/in_process_scheduler.h"

#include <QCoreApplication>
#include <QDir>
#include <QThread>
#include <cmath>
#include <limits>

#include "core/errors.h"
// Qt defines `slots` and `emit` as macros; ladder::Resources has a field `slots` and the
// scheduler a method `emit`. This file says Q_EMIT instead.
#undef slots
#undef emit
#include "core/ladder/ladder_spec.h"
#include "core/protocol.h"
#include "core/scheduler/backend_factory.h"
#include "core/scheduler/device_memory.h"
#include "core/scheduler/scheduler.h"
#include "core/scheduler/scheduler_lock.h"
#include "storage/database.h"
#include "storage/ladder_queue.h"
#include "storage/queue_execution.h"
#include "storage/run_store_sqlite.h"
#include "ui/workbench/gui_query_guard.h"

namespace deepladder::ui {

QString workerProgramPath() {
  const QString env = qEnvironmentVariable("DEEPLADDER_WORKER");
  if (!env.isEmpty()) return env;
  return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("deepladder-worker"));
}

QString cliProgramPath() {
  const QString env = qEnvironmentVariable("DEEPLADDER_CLI");
  if (!env.isEmpty()) return env;
  return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("deepladder"));
}

InProcessScheduler::InProcessScheduler(QString db_path, QString worker_path, QObject* parent)
    : QObject(parent), db_path_(std::move(db_path)), worker_path_(std::move(worker_path)) {}

InProcessScheduler::~InProcessScheduler() {
  stop();
  if (thread_) {
    thread_->wait();
    delete thread_;
  }
}

bool InProcessScheduler::isRunning() const {
  return thread_ != nullptr;
}

void InProcessScheduler::takeLock() {
  if (thread_) {  // it has stopped taking ladders: let it end and release the lock first
    thread_->wait();
    onThreadFinished();
  }
  if (!lock_) lock_ = std::make_unique<scheduler::SchedulerLock>(db_path_.toStdString());
}

void InProcessScheduler::runLadder(int64_t ladder_id) {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (accepting_) {  // the thread picks it up after the ladder in progress
      ladders_.push_back(ladder_id);
      session_ladders_.insert(ladder_id);
      return;
    }
  }
  takeLock();
  session_ladders_ = {ladder_id};
  {
    std::lock_guard<std::mutex> guard(mutex_);
    ladders_ = {ladder_id};
    accepting_ = true;
    stop_requested_ = false;
  }
  error_.clear();
  active_runs_ = 0;
  thread_ = QThread::create([this] { threadMain(); });
  thread_->setObjectName(QStringLiteral("deepladder scheduler"));
  const int generation = ++thread_generation_;
  connect(
      thread_, &QThread::finished, this,
      [this, generation] {
        if (generation == thread_generation_) onThreadFinished();
      },
      Qt::QueuedConnection);
  thread_->start();
}

int64_t InProcessScheduler::enqueueAndRun(const QString& toml, const QString& source_name,
                                          QString* summary) {
  ladder::LadderSpec spec = ladder::parseLadder(toml.toStdString(), source_name.toStdString());
  scheduler::planForLocalDevices(spec);  // the micro-batch that fits this machine's devices
  bool accepting = false;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    accepting = accepting_;
  }
  if (!accepting) takeLock();  // like `deepladder run`: nothing is queued without the lock
  storage::EnqueueResult queued;
  AllowGuiThreadQueries user_action;  // queueing the ladder the user asked to run
  try {
    auto db = storage::Database::open(db_path_.toStdString());
    queued = storage::enqueueLadder(*db, spec, storage::defaultWorkRoot(db_path_.toStdString()));
  } catch (...) {
    if (!thread_) lock_.reset();  // nothing runs: let a headless scheduler have the database
    throw;
  }
  if (summary) {
    const QString name = QString::fromStdString(spec.name);
    if (queued.new_ladder)
      *summary = tr("ladder \"%1\": %n run(s) queued", "", queued.runs_added).arg(name);
    else
      *summary = tr("ladder \"%1\" was already in the database: %2 finished run(s) kept, %3 "
                    "failed run(s) queued again")
                     .arg(name)
                     .arg(queued.runs_finished)
                     .arg(queued.runs_requeued);
    if (queued.changed_spec)
      *summary +=
          tr(" (its spec changed since it was last run: this is a new ladder; the old "
             "one's runs stay in the database)");
  }
  runLadder(queued.ladder_id);
  return queued.ladder_id;
}

QStringList InProcessScheduler::resumeArguments() const {
  QStringList args = {QStringLiteral("resume"), QStringLiteral("--db"), db_path_,
                      QStringLiteral("--quiet")};
  if (session_ladders_.size() != 1) return args;
  try {
    AllowGuiThreadQueries hand_off;  // one row, when the window closes
    auto db = storage::Database::open(db_path_.toStdString(), /*read_only=*/true);
    if (const auto stored = db->ladder(*session_ladders_.begin()))
      args << QStringLiteral("--ladder") << QString::fromStdString(stored->hash);
  } catch (const std::exception&) {
    // The database cannot be read: resume everything rather than nothing.
  }
  return args;
}

void InProcessScheduler::onThreadFinished() {
  if (!thread_) return;
  thread_->wait();  // `finished` comes from the thread's last moments: let it end
  delete thread_;
  thread_ = nullptr;
  lock_.reset();
  Q_EMIT stopped(error_);
}

void InProcessScheduler::stop() {
  std::lock_guard<std::mutex> guard(mutex_);
  stop_requested_ = true;
  if (current_) current_->stop();
}

bool InProcessScheduler::wait(int ms) {
  if (!thread_) return true;
  if (!thread_->wait(QDeadlineTimer(ms))) return false;
  onThreadFinished();
  return true;
}

void InProcessScheduler::threadMain() {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  try {
    auto db = storage::Database::open(db_path_.toStdString());
    // We hold the lock, so no other scheduler is alive: "running" runs are orphans.
    storage::markOrphanedRunsInterrupted(*db, std::nullopt);
    for (;;) {
      int64_t ladder_id = 0;
      {
        std::lock_guard<std::mutex> guard(mutex_);
        if (stop_requested_ || ladders_.empty()) {
          accepting_ = false;
          break;
        }
        ladder_id = ladders_.front();
        ladders_.pop_front();
      }
      // The resources the ladder was queued with (stored typed: no TOML is read again).
      storage::QueueExecution execution(std::make_unique<storage::SqliteRunStore>(*db, ladder_id),
                                        storage::storedResources(*db, ladder_id),
                                        worker_path_.toStdString());
      scheduler::Scheduler& sched = execution.scheduler();
      sched.onEvent([this, kNaN](const scheduler::SchedulerEvent& e) {
        const auto id = static_cast<qint64>(e.run_id);
        if (e.kind == scheduler::SchedulerEvent::kLaunched) {
          ++active_runs_;
          Q_EMIT runLaunched(id, QString::fromStdString(e.where));
        } else if (e.kind == scheduler::SchedulerEvent::kSettled) {
          --active_runs_;
          Q_EMIT runSettled(id, QString::fromLatin1(toString(e.status)));
        } else if (const auto update = storage::progressUpdate(e)) {
          Q_EMIT runMetric(id, update->step, update->tokens, update->train_loss.value_or(kNaN),
                           update->val_loss.value_or(kNaN), update->tokens_per_s.value_or(kNaN));
        }
      });
      {
        std::lock_guard<std::mutex> guard(mutex_);
        current_ = &sched;
        if (stop_requested_) sched.stop();
      }
      sched.run();
      std::lock_guard<std::mutex> guard(mutex_);
      current_ = nullptr;
    }
  } catch (const std::exception& e) {
    error_ = QString::fromUtf8(e.what());
  }
  std::lock_guard<std::mutex> guard(mutex_);
  accepting_ = false;
  current_ = nullptr;
  active_runs_ = 0;
}

}  // namespace deepladder::ui
