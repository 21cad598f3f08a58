// Polls the database for the run list about once a second on its own thread (with its own
// read-only connection: one Database per thread), and hands each snapshot to the GUI thread
// through a queued signal. This is how the window follows a headless `deepladder run` that owns
// the database; polling never blocks the writer (WAL).
#pragma once

#include <QObject>
#include <QString>
#include <QThread>
#include <memory>
#include <vector>

#include "storage/records.h"

class QTimer;

namespace deepladder::storage {
class Database;
}

namespace deepladder::ui {

using RunSnapshot = std::shared_ptr<const std::vector<storage::RunSummary>>;

class RunPoller : public QObject {
  Q_OBJECT
 public:
  explicit RunPoller(QString db_path, int interval_ms = 1000);
  ~RunPoller() override;
  // Starts polling on a private thread; stops (and joins) in the destructor.
  void start();
  // Reads a snapshot now (on the poller's thread), e.g. after a run changed status.
  void pollNow();
  // Polling interval; the monitor polls slowly while its own scheduler feeds it live.
  void setInterval(int interval_ms);

 signals:
  void runsLoaded(deepladder::ui::RunSnapshot runs, double now_unix);
  void failed(QString message);

 private:
  class Worker;
  QThread thread_;
  Worker* worker_ = nullptr;
};

}  // namespace deepladder::ui

Q_DECLARE_METATYPE(deepladder::ui::RunSnapshot)
