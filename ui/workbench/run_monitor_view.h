// The run monitor: every run of the database in a sortable, filterable table. When the window
// owns the scheduler (InProcessScheduler: Run in the designer, Resume or Retry here) the table is
// fed live by the scheduler's signals; when a headless `deepladder run` owns the database it is
// fed by polling (RunPoller, once a second). Cancel (runs or whole ladders), Retry (failed or
// cancelled runs) and Resume (ladders with queued or interrupted runs) are storage's run control
// (storage/run_control.h), the same as `deepladder cancel` / `resume`; who owns the scheduler is
// read there too, so this view reads no lock file and signals no process.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

class QTableView;
class QLineEdit;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;

namespace deepladder::ui {

class RunTableModel;
class RunPoller;
class InProcessScheduler;

class RunMonitorView : public QWidget {
  Q_OBJECT
 public:
  explicit RunMonitorView(QWidget* parent = nullptr);
  ~RunMonitorView() override;
  void setDatabase(const QString& path);
  RunTableModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  InProcessScheduler* scheduler() const { return scheduler_; }
  std::vector<int64_t> selectedRunIds() const;
  int runningCount() const;
  // True while this window's own scheduler is running (not a headless one).
  bool ownsScheduler() const;
  // Who runs the database's scheduler, as the footer says it.
  QString schedulerOwnerText() const;
  // The pid of another live process that owns the database's scheduler, or 0
  // (storage::otherSchedulerPid).
  qint64 otherSchedulerPid() const;

  // The actions behind the buttons (no confirmation dialogs; each returns what it did, for the
  // status line, or throws UserError, e.g. when a headless scheduler holds the database).
  QString cancelRuns(const std::vector<int64_t>& run_ids);
  QString cancelLadders(const std::vector<int64_t>& run_ids);  // the ladders of these runs
  QString retryRuns(const std::vector<int64_t>& run_ids);
  QString resumeLadders(const std::vector<int64_t>& run_ids);  // none: every resumable ladder
  // Queues a new ladder (TOML text; UserError with the CLI's message when invalid) and runs it
  // with the window's scheduler; returns what was queued.
  QString runLadderText(const QString& toml);

 signals:
  void compareRequested(std::vector<int64_t> run_ids);
  void runsChanged();
  void schedulerStopped(QString error);

 private:
  void act(const std::function<QString()>& action);
  void startLadders(const std::vector<int64_t>& ladder_ids);
  void updateSummary();
  QString db_path_;
  RunTableModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  QLineEdit* filter_;
  QLabel* summary_;
  QLabel* owner_;
  QString last_action_;
  std::unique_ptr<RunPoller> poller_;
  InProcessScheduler* scheduler_ = nullptr;
};

}  // namespace deepladder::ui
