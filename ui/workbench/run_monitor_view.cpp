// The run monitor view (see run_monitor_view.h).
#include "ui/workbench/run_monitor_view.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <functional>

#include "core/errors.h"
#include "core/run_status.h"
#include "storage/database.h"
#include "storage/run_control.h"
#include "ui/workbench/database_access.h"
#include "ui/workbench/gui_query_guard.h"
#include "ui/workbench/in_process_scheduler.h"
#include "ui/workbench/run_poller.h"
#include "ui/workbench/run_table_model.h"

namespace deepladder::ui {
namespace {

constexpr int kPollMs = 1000;      // following a headless scheduler
constexpr int kLivePollMs = 5000;  // own scheduler: events are live, polling only re-syncs

double nowUnix() {
  return QDateTime::currentMSecsSinceEpoch() / 1000.0;
}

int cancelled(const std::vector<storage::CancelOutcome>& outcomes) {
  int n = 0;
  for (const storage::CancelOutcome& o : outcomes)
    n += o.kind == storage::CancelOutcome::Kind::kCancelled;
  return n;
}

}  // namespace

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
  auto* cancel = new QPushButton(tr("Cancel runs"));
  auto* cancel_ladder = new QPushButton(tr("Cancel ladder"));
  auto* retry = new QPushButton(tr("Retry"));
  auto* resume = new QPushButton(tr("Resume"));
  compare->setToolTip(tr("Overlay the selected runs' curves in the Compare view"));
  cancel->setToolTip(tr("Stop the selected runs (they end cancelled). Delete"));
  cancel_ladder->setToolTip(tr("Stop every unfinished run of the selected runs' ladders"));
  retry->setToolTip(
      tr("Queue the selected failed or cancelled runs again and run them here "
         "(from their last checkpoint)"));
  resume->setToolTip(
      tr("Run the queued and interrupted runs of the selected runs' ladders "
         "(of every ladder when nothing is selected) in this window"));
  summary_ = new QLabel;
  owner_ = new QLabel;
  owner_->setTextInteractionFlags(Qt::TextSelectableByMouse);

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
  bar->addWidget(cancel_ladder);
  bar->addWidget(retry);
  bar->addWidget(resume);
  auto* footer = new QHBoxLayout;
  footer->addWidget(summary_, 1);
  footer->addWidget(owner_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(table_, 1);
  layout->addLayout(footer);

  connect(compare, &QPushButton::clicked, this,
          [this] { emit compareRequested(selectedRunIds()); });
  connect(table_, &QTableView::doubleClicked, this,
          [this] { emit compareRequested(selectedRunIds()); });
  connect(cancel, &QPushButton::clicked, this, [this] {
    const auto ids = selectedRunIds();
    if (ids.empty()) return;
    if (QMessageBox::question(this, tr("Cancel runs"),
                              tr("Cancel %n run(s)? Running workers are stopped; the runs end "
                                 "cancelled (Retry queues them again).",
                                 "", int(ids.size()))) == QMessageBox::Yes)
      act([this, ids] { return cancelRuns(ids); });
  });
  connect(cancel_ladder, &QPushButton::clicked, this, [this] {
    const auto ids = selectedRunIds();
    if (ids.empty()) return;
    if (QMessageBox::question(this, tr("Cancel ladder"),
                              tr("Cancel every unfinished run of the selected runs' ladders?")) ==
        QMessageBox::Yes)
      act([this, ids] { return cancelLadders(ids); });
  });
  connect(retry, &QPushButton::clicked, this,
          [this] { act([this] { return retryRuns(selectedRunIds()); }); });
  // Keys while the table has the focus: Delete cancels the selected runs (asking first).
  auto* cancel_key = new QShortcut(QKeySequence::Delete, table_);
  cancel_key->setContext(Qt::WidgetShortcut);
  connect(cancel_key, &QShortcut::activated, cancel, &QPushButton::click);
  connect(resume, &QPushButton::clicked, this,
          [this] { act([this] { return resumeLadders(selectedRunIds()); }); });
}

RunMonitorView::~RunMonitorView() = default;

void RunMonitorView::setDatabase(const QString& path) {
  db_path_ = path;
  delete scheduler_;  // the caller made sure it is not running
  scheduler_ = new InProcessScheduler(path, workerProgramPath(), this);
  connect(scheduler_, &InProcessScheduler::runLaunched, this, [this](qint64 id, QString where) {
    model_->applyLiveStatus(id, RunStatus::kRunning, where.toStdString());
    if (poller_) poller_->pollNow();
  });
  connect(scheduler_, &InProcessScheduler::runMetric, this,
          [this](qint64 id, qint64 step, qint64 tokens, double train, double val, double rate) {
            model_->applyLiveMetric(id, step, tokens, train, val, rate, nowUnix());
          });
  connect(scheduler_, &InProcessScheduler::runSettled, this, [this](qint64 id, QString status) {
    model_->applyLiveStatus(id, parseRunStatus(status.toStdString()).value_or(RunStatus::kFailed),
                            "");
    if (poller_) poller_->pollNow();
    emit runsChanged();
  });
  connect(scheduler_, &InProcessScheduler::stopped, this, [this](QString error) {
    if (poller_) {
      poller_->setInterval(kPollMs);
      poller_->pollNow();
    }
    last_action_ = error.isEmpty() ? tr("The window's scheduler has stopped.")
                                   : tr("The window's scheduler stopped: %1").arg(error);
    updateSummary();
    emit schedulerStopped(error);
  });

  poller_ = std::make_unique<RunPoller>(path, kPollMs);
  connect(poller_.get(), &RunPoller::runsLoaded, this, [this](RunSnapshot runs, double now) {
    const bool first = model_->rowCount() == 0;
    model_->setRuns(*runs, now);
    if (first) table_->resizeColumnsToContents();
    updateSummary();
    emit runsChanged();
  });
  connect(poller_.get(), &RunPoller::failed, this, [this](const QString& message) {
    summary_->setText(tr("Cannot read runs: %1").arg(message));
  });
  poller_->start();
  updateSummary();
}

void RunMonitorView::updateSummary() {
  int running = 0;
  for (int r = 0; r < model_->rowCount(); ++r)
    running += model_->runAt(r)->run.status == RunStatus::kRunning;
  summary_->setText(tr("%1 runs, %2 running").arg(model_->rowCount()).arg(running) +
                    (last_action_.isEmpty() ? QString() : QStringLiteral(" — ") + last_action_));
  if (ownsScheduler()) {
    owner_->setText(tr("Scheduler: this window (live)"));
  } else if (const qint64 pid = otherSchedulerPid(); pid > 0) {
    owner_->setText(tr("Scheduler: another process, pid %1 (followed every second)").arg(pid));
  } else if (running > 0) {
    owner_->setText(tr("No scheduler is running: Resume continues the runs left running"));
  } else {
    owner_->setText(tr("Scheduler: idle"));
  }
}

qint64 RunMonitorView::otherSchedulerPid() const {
  return db_path_.isEmpty() ? 0 : storage::otherSchedulerPid(db_path_.toStdString()).value_or(0);
}

QString RunMonitorView::schedulerOwnerText() const {
  return owner_->text();
}

bool RunMonitorView::ownsScheduler() const {
  return scheduler_ && scheduler_->isRunning();
}

void RunMonitorView::act(const std::function<QString()>& action) {
  // A click's short write (cancel, retry, resume), which the user waits on.
  AllowGuiThreadQueries user_action;
  try {
    last_action_ = action();
  } catch (const std::exception& e) {
    last_action_.clear();
    QMessageBox::warning(this, tr("Cannot do that"), QString::fromUtf8(e.what()));
  }
  updateSummary();
}

QString RunMonitorView::cancelRuns(const std::vector<int64_t>& run_ids) {
  auto db = openExistingDatabase(db_path_, /*read_only=*/false);
  const int n = cancelled(
      storage::cancelAndSettle(*db, db_path_.toStdString(), storage::runsWithIds(*db, run_ids), 0));
  poller_->pollNow();
  return tr("cancelled %n run(s)", "", n);
}

QString RunMonitorView::cancelLadders(const std::vector<int64_t>& run_ids) {
  auto db = openExistingDatabase(db_path_, /*read_only=*/false);
  int ladders = 0;
  const int n = cancelled(storage::cancelAndSettle(
      *db, db_path_.toStdString(), storage::runsOfTheirLadders(*db, run_ids, &ladders), 0));
  poller_->pollNow();
  return tr("cancelled %n run(s) of %1 ladder(s)", "", n).arg(ladders);
}

QString RunMonitorView::retryRuns(const std::vector<int64_t>& run_ids) {
  storage::RetryOutcome retried;
  {
    auto db = openExistingDatabase(db_path_, /*read_only=*/false);
    retried = storage::retryRuns(*db, run_ids);
  }
  const int n = retried.queued;
  if (n == 0) return tr("nothing to retry: select failed or cancelled runs");
  try {
    startLadders(retried.ladders);
  } catch (const UserError& e) {
    // A headless scheduler owns the database: it takes the queued runs if it is running their
    // ladder; otherwise Resume once it has ended.
    return tr("queued %n run(s) again; %1", "", n).arg(QString::fromUtf8(e.what()));
  }
  return tr("queued %n run(s) again", "", n);
}

QString RunMonitorView::resumeLadders(const std::vector<int64_t>& run_ids) {
  std::vector<int64_t> ladders;
  {
    auto db = openExistingDatabase(db_path_, /*read_only=*/true);
    ladders = storage::laddersToResumeOf(*db, run_ids);
  }
  if (ladders.empty()) return tr("nothing to resume: no queued or interrupted runs");
  startLadders(ladders);
  return tr("resuming %n ladder(s) in this window", "", int(ladders.size()));
}

QString RunMonitorView::runLadderText(const QString& toml) {
  QString summary;
  scheduler_->enqueueAndRun(toml, QStringLiteral("designer"), &summary);
  poller_->setInterval(kLivePollMs);
  poller_->pollNow();
  last_action_ = summary;
  updateSummary();
  return summary;
}

void RunMonitorView::startLadders(const std::vector<int64_t>& ladder_ids) {
  for (int64_t ladder : ladder_ids) scheduler_->runLadder(ladder);  // UserError: lock held
  poller_->setInterval(kLivePollMs);
  poller_->pollNow();
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
  for (int r = 0; r < model_->rowCount(); ++r)
    n += model_->runAt(r)->run.status == RunStatus::kRunning;
  return n;
}

}  // namespace deepladder::ui
