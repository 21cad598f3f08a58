// The run monitor view (see run_monitor_view.h).
#include "ui/workbench/run_monitor_view.h"

#include <QCoreApplication>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/workbench/run_poller.h"
#include "ui/workbench/run_table_model.h"

namespace deepladder::ui {

RunMonitorView::RunMonitorView(QWidget* parent) : QWidget(parent) {
  model_ = new RunTableModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(RunTableModel::kSortRole);
  proxy_->setFilterKeyColumn(-1);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);

  filter_ = new QLineEdit;
  filter_->setPlaceholderText(tr("Filter runs (ladder, name, arm, status)…"));
  filter_->setClearButtonEnabled(true);
  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);

  auto* compare = new QPushButton(tr("Compare selected"));
  auto* cancel = new QPushButton(tr("Cancel"));
  auto* resume = new QPushButton(tr("Resume / retry"));
  compare->setToolTip(tr("Overlay the selected runs' curves in the Compare view"));
  cancel->setToolTip(tr("deepladder cancel: stop the selected runs"));
  resume->setToolTip(tr("deepladder resume: start the pending, failed or interrupted runs again"));
  summary_ = new QLabel;

  table_ = new QTableView;
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(RunTableModel::kId, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setAlternatingRowColors(true);
  table_->verticalHeader()->hide();
  // The run name takes the spare width (not FLOPs, the last column, which would push its
  // short numbers far from the rest of the row).
  table_->horizontalHeader()->setStretchLastSection(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table_->horizontalHeader()->setSectionResizeMode(RunTableModel::kRun, QHeaderView::Stretch);
  table_->setWordWrap(false);

  auto* bar = new QHBoxLayout;
  bar->addWidget(filter_, 1);
  bar->addWidget(compare);
  bar->addWidget(cancel);
  bar->addWidget(resume);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(table_, 1);
  layout->addWidget(summary_);

  connect(compare, &QPushButton::clicked, this,
          [this] { emit compareRequested(selectedRunIds()); });
  connect(table_, &QTableView::doubleClicked, this,
          [this] { emit compareRequested(selectedRunIds()); });
  connect(cancel, &QPushButton::clicked, this, [this] {
    const auto ids = selectedRunIds();
    if (ids.empty()) return;
    if (QMessageBox::question(this, tr("Cancel runs"),
                              tr("Cancel %n run(s)? Their workers are stopped.", "",
                                 int(ids.size()))) != QMessageBox::Yes)
      return;
    for (int64_t id : ids) runCli({"cancel", QString::number(id), "--db", db_path_});
  });
  connect(resume, &QPushButton::clicked, this, [this] {
    runCli({"resume", "--db", db_path_, "--quiet"});
  });
}

RunMonitorView::~RunMonitorView() = default;

void RunMonitorView::setDatabase(const QString& path) {
  db_path_ = path;
  poller_ = std::make_unique<RunPoller>(path);
  connect(poller_.get(), &RunPoller::runsLoaded, this, [this](RunSnapshot runs, double now) {
    const bool first = model_->rowCount() == 0;
    model_->setRuns(*runs, now);
    if (first) table_->resizeColumnsToContents();
    int running = 0;
    for (const auto& s : *runs) running += s.run.status == "running";
    summary_->setText(tr("%1 runs, %2 running — %3").arg(runs->size()).arg(running).arg(db_path_));
    emit runsChanged();
  });
  connect(poller_.get(), &RunPoller::failed, this, [this](const QString& message) {
    summary_->setText(tr("Cannot read runs: %1").arg(message));
  });
  poller_->start();
}

std::vector<int64_t> RunMonitorView::selectedRunIds() const {
  std::vector<int64_t> ids;
  for (const QModelIndex& index : table_->selectionModel()->selectedRows()) {
    const auto* s = model_->runAt(proxy_->mapToSource(index).row());
    if (s) ids.push_back(s->run.id);
  }
  return ids;
}

int RunMonitorView::runningCount() const {
  int n = 0;
  for (int r = 0; r < model_->rowCount(); ++r) n += model_->runAt(r)->run.status == "running";
  return n;
}

void RunMonitorView::runCli(const QStringList& args) {
  const QString cli =
      QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("deepladder"));
  if (!QProcess::startDetached(cli, args))
    QMessageBox::warning(
        this, tr("deepladder not found"),
        tr("Could not start %1. Install deepladder next to deepladder-gui.").arg(cli));
}

}  // namespace deepladder::ui
