// The run monitor: every run of the database in a sortable, filterable table that refreshes
// once a second from a RunPoller; Cancel / Resume act through the `deepladder` CLI (the
// scheduler that owns the runs), so the window never writes run state behind its back.
#pragma once

#include <QWidget>
#include <memory>

class QTableView;
class QLineEdit;
class QLabel;
class QSortFilterProxyModel;

namespace deepladder::ui {

class RunTableModel;
class RunPoller;

class RunMonitorView : public QWidget {
  Q_OBJECT
 public:
  explicit RunMonitorView(QWidget* parent = nullptr);
  ~RunMonitorView() override;
  void setDatabase(const QString& path);
  RunTableModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  std::vector<int64_t> selectedRunIds() const;
  int runningCount() const;

 signals:
  void compareRequested(std::vector<int64_t> run_ids);
  void runsChanged();

 private:
  void runCli(const QStringList& args);
  QString db_path_;
  RunTableModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  QLineEdit* filter_;
  QLabel* summary_;
  std::unique_ptr<RunPoller> poller_;
};

}  // namespace deepladder::ui
