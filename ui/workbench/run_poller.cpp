// Polling the run list on a worker thread (see run_poller.h).
#include "ui/workbench/run_poller.h"

#include <QDateTime>
#include <QTimer>

#include "storage/database.h"
#include "ui/workbench/database_access.h"

namespace deepladder::ui {

class RunPoller::Worker : public QObject {
 public:
  Worker(RunPoller* owner, QString path, int interval_ms)
      : owner_(owner), path_(std::move(path)), interval_ms_(interval_ms) {}

  void begin() {
    timer_ = new QTimer(this);
    timer_->setInterval(interval_ms_);
    QObject::connect(timer_, &QTimer::timeout, this, [this] { poll(); });
    poll();
    timer_->start();
  }

  void setInterval(int interval_ms) {
    interval_ms_ = interval_ms;
    if (timer_) timer_->setInterval(interval_ms);
  }

  void poll() {
    try {
      if (!db_) db_ = openExistingDatabase(path_, /*read_only=*/true);
      auto runs = std::make_shared<std::vector<storage::RunSummary>>(db_->listRuns());
      emit owner_->runsLoaded(runs, QDateTime::currentMSecsSinceEpoch() / 1000.0);
    } catch (const std::exception& e) {
      db_.reset();
      emit owner_->failed(QString::fromUtf8(e.what()));
    }
  }

 private:
  RunPoller* owner_;
  QString path_;
  int interval_ms_;
  QTimer* timer_ = nullptr;
  std::unique_ptr<storage::Database> db_;
};

RunPoller::RunPoller(QString db_path, int interval_ms) {
  qRegisterMetaType<RunSnapshot>("deepladder::ui::RunSnapshot");
  worker_ = new Worker(this, std::move(db_path), interval_ms);
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
}

RunPoller::~RunPoller() {
  thread_.quit();
  thread_.wait();
}

void RunPoller::start() {
  thread_.start();
  QMetaObject::invokeMethod(
      worker_, [w = worker_] { w->begin(); }, Qt::QueuedConnection);
}

void RunPoller::pollNow() {
  QMetaObject::invokeMethod(
      worker_, [w = worker_] { w->poll(); }, Qt::QueuedConnection);
}

void RunPoller::setInterval(int interval_ms) {
  QMetaObject::invokeMethod(
      worker_, [w = worker_, interval_ms] { w->setInterval(interval_ms); }, Qt::QueuedConnection);
}

}  // namespace deepladder::ui
