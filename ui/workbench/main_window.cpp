// The deepladder-gui main window (see main_window.h).
#include "ui/workbench/main_window.h"

#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>

#include "core/errors.h"
#include "fitting/scaling_table.h"
#include "storage/database.h"
#include "ui/plots/plot_export.h"
#include "ui/plots/plot_style.h"
#include "ui/workbench/compare_view.h"
#include "ui/workbench/database_access.h"
#include "ui/workbench/frontier_view.h"
#include "ui/workbench/gui_query_guard.h"
#include "ui/workbench/in_process_scheduler.h"
#include "ui/workbench/ladder_designer_view.h"
#include "ui/workbench/lens_view.h"
#include "ui/workbench/run_monitor_view.h"
#include "ui/workbench/run_table_model.h"
#include "ui/workbench/serial_task_view.h"

namespace deepladder::ui {
namespace {

const char* kDefaultLadder = R"(# A new ladder: vanilla GPTs at three depths on the built-in corpus.
[ladder]
name = "my-ladder"
description = "Depth ladder"
seeds = [1]

[model]
seq_len = 64

[data]
kind = "builtin"

[train]
batch_size = 16
lr = 3e-3
eval_every = 100

[sizes]
depths = [2, 3, 4]
width_per_depth = 32
head_dim = 16

[budget]
rule = "tokens_per_param"
tokens_per_param = 10

[arms.vanilla]

[resources]
backend = "local"
devices = "cpu"
slots = 2
)";

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("deepladder"));
  tabs_ = new QTabWidget;
  tabs_->setDocumentMode(true);
  runs_ = new RunMonitorView;
  compare_ = new CompareView;
  frontier_ = new FrontierView;
  lens_ = new LensView;
  serial_ = new SerialTaskView;
  designer_ = new LadderDesignerView;
  tabs_->addTab(runs_, tr("&Runs"));
  tabs_->addTab(compare_, tr("&Compare"));
  tabs_->addTab(frontier_, tr("&Frontier && multiplier"));
  tabs_->addTab(lens_, tr("&Lens"));
  tabs_->addTab(serial_, tr("&Serial task"));
  tabs_->addTab(designer_, tr("&Designer"));
  setCentralWidget(tabs_);
  db_label_ = new QLabel;
  statusBar()->addPermanentWidget(db_label_);
  designer_->setText(QString::fromUtf8(kDefaultLadder));
  // The frontier, multiplier and history follow the runs as they finish.
  connect(runs_, &RunMonitorView::runsChanged, frontier_,
          [this] { frontier_->followRuns(*runs_->model()); });
  buildMenus();

  connect(runs_, &RunMonitorView::compareRequested, this, [this](std::vector<int64_t> ids) {
    compare_->reloadRuns();
    compare_->setCheckedRuns(ids);
    showView(kCompare);
  });
  connect(designer_, &LadderDesignerView::runRequested, this,
          [this](const QString& toml) { runLadderText(toml); });
  connect(runs_, &RunMonitorView::schedulerStopped, this, [this](const QString& error) {
    if (!error.isEmpty())
      QMessageBox::warning(this, tr("Scheduler stopped"),
                           tr("The window's scheduler stopped with an error:\n%1").arg(error));
    refreshAll();
  });
  connect(tabs_, &QTabWidget::currentChanged, this, [this](int index) {
    if (index == kCompare) compare_->reloadRuns();
  });

  QSettings settings;
  if (!restoreGeometry(settings.value("window/geometry").toByteArray())) resize(1280, 820);
  restoreState(settings.value("window/state").toByteArray());
  tabs_->setCurrentIndex(settings.value("window/tab", 0).toInt());
  restoreLayout(settings);
}

// Every splitter of every view (plots beside tables, form beside text) and the run table's
// columns, keyed by their place in the window: the layout a user arranged survives a restart.
void MainWindow::restoreLayout(QSettings& settings) {
  const auto splitters = findChildren<QSplitter*>();
  for (int i = 0; i < splitters.size(); ++i) {
    const QByteArray state =
        settings.value(QStringLiteral("layout/splitter%1").arg(i)).toByteArray();
    if (!state.isEmpty()) splitters[i]->restoreState(state);
  }
  const QByteArray header = settings.value(QStringLiteral("layout/run_table")).toByteArray();
  if (!header.isEmpty()) runs_->table()->horizontalHeader()->restoreState(header);
}

void MainWindow::saveLayout(QSettings& settings) const {
  const auto splitters = findChildren<QSplitter*>();
  for (int i = 0; i < splitters.size(); ++i)
    settings.setValue(QStringLiteral("layout/splitter%1").arg(i), splitters[i]->saveState());
  settings.setValue(QStringLiteral("layout/run_table"),
                    runs_->table()->horizontalHeader()->saveState());
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open database…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open database"), db_path_, tr("deepladder databases (*.db);;All files (*)"));
    if (!path.isEmpty()) openDatabase(path);
  });
  open->setShortcut(QKeySequence::Open);
  QAction* plot = file->addAction(tr("Export &plot…"), this, [this] {
    if (!currentPlot()) {
      QMessageBox::information(this, tr("Export plot"), tr("This view has no plot."));
      return;
    }
    const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), "plot.png",
                                                      tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty()) return;
    try {
      exportPlot(path);
      statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
    } catch (const std::exception& e) {
      QMessageBox::warning(this, tr("Export failed"), QString::fromUtf8(e.what()));
    }
  });
  plot->setShortcut(QKeySequence(tr("Ctrl+E")));
  QAction* table = file->addAction(tr("Export scaling &table…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export scaling table"), "scaling.md",
        tr("Markdown (*.md);;CSV (*.csv);;LaTeX (*.tex);;JSON (*.json)"));
    if (path.isEmpty()) return;
    try {
      exportTable(path);
      statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
    } catch (const std::exception& e) {
      QMessageBox::warning(this, tr("Export failed"), QString::fromUtf8(e.what()));
    }
  });
  table->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (int i = 0; i < kViewCount; ++i) {
    QAction* a = view->addAction(tabs_->tabText(i).remove('&').replace("&&", "&"), this,
                                 [this, i] { showView(static_cast<View>(i)); });
    a->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)));
  }
  view->addSeparator();
  QAction* refresh = view->addAction(tr("&Refresh"), this, &MainWindow::refreshAll);
  refresh->setShortcut(QKeySequence::Refresh);
}

bool MainWindow::openDatabase(const QString& path, bool quiet) {
  if (runs_->ownsScheduler()) {
    const QString message = tr("This window is running ladders on %1. Stop them (or wait for "
                               "them to finish) before opening another database.")
                                .arg(db_path_);
    if (!quiet) QMessageBox::information(this, tr("Runs in progress"), message);
    statusBar()->showMessage(message);
    return false;
  }
  DatabaseProblem problem;
  AllowGuiThreadQueries open_check;  // a read-only open: schema reads, not the data
  auto db = tryOpenDatabase(path, /*read_only=*/true, &problem);
  if (!db) {
    if (!quiet) QMessageBox::critical(this, problem.title, problem.message);
    statusBar()->showMessage(problem.title);
    return false;
  }
  db.reset();
  db_path_ = QFileInfo(path).absoluteFilePath();
  setWindowTitle(tr("deepladder — %1").arg(QFileInfo(path).fileName()));
  // The file's name in the status bar (a screenshot shows no home directory); its path on hover.
  db_label_->setText(QFileInfo(db_path_).fileName());
  db_label_->setToolTip(db_path_);
  runs_->setDatabase(db_path_);
  compare_->setDatabase(db_path_);
  frontier_->setDatabase(db_path_);
  lens_->setDatabase(db_path_);
  serial_->setDatabase(db_path_);
  designer_->setDatabase(db_path_);
  QSettings().setValue("database/last", db_path_);
  return true;
}

void MainWindow::refreshAll() {
  if (db_path_.isEmpty()) return;
  compare_->reloadRuns();
  frontier_->reloadSources();
  lens_->reloadRuns();
  serial_->reloadRuns();
}

void MainWindow::showView(View view) {
  tabs_->setCurrentIndex(view);
}

QCustomPlot* MainWindow::currentPlot() const {
  switch (tabs_->currentIndex()) {
    case kCompare:
      return compare_->plot();
    case kFrontier:
      return frontier_->frontierPlot();
    case kLens:
      return lens_->profilePlot();
    case kSerialTask:
      return serial_->heatmap();
    default:
      return nullptr;
  }
}

void MainWindow::exportPlot(const QString& path) {
  QCustomPlot* plot = currentPlot();
  if (!plot) throw UserError("the current view has no plot to export");
  plots::savePlot(*plot, path);
}

void MainWindow::exportTable(const QString& path) {
  const auto& result = frontier_->result();
  if (!result) throw UserError("fit a ladder in the Frontier view first: there is no table yet");
  const QString suffix = QFileInfo(path).suffix().toLower();
  const std::string text = fitting::scalingTable(*result, suffix.toStdString());
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), text.size()) < 0)
    throw UserError("cannot write " + path.toStdString());
}

bool MainWindow::runLadderText(const QString& toml, bool quiet) {
  try {
    if (db_path_.isEmpty())
      throw UserError("open a database first (File > Open database…): the ladder's runs go there");
    statusBar()->showMessage(tr("Running in this window: %1").arg(runs_->runLadderText(toml)),
                             10000);
    showView(kRuns);
    return true;
  } catch (const std::exception& e) {
    if (!quiet)
      QMessageBox::warning(this, tr("Cannot run the ladder"), QString::fromUtf8(e.what()));
    statusBar()->showMessage(QString::fromUtf8(e.what()));
    return false;
  }
}

bool MainWindow::stopOwnScheduler(bool hand_off, int wait_ms) {
  InProcessScheduler* scheduler = runs_->scheduler();
  if (!scheduler || !scheduler->isRunning()) return true;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  statusBar()->showMessage(tr("Stopping the runs (they stay resumable)…"));
  scheduler->stop();
  const bool stopped = scheduler->wait(wait_ms);
  QApplication::restoreOverrideCursor();
  if (!stopped) return false;
  if (hand_off) {
    const QString cli = cliProgramPath();
    if (!QProcess::startDetached(cli, scheduler->resumeArguments()))
      QMessageBox::warning(this, tr("Cannot hand the runs over"),
                           tr("Could not start %1. The runs are interrupted; continue them with "
                              "`deepladder resume --db %2`.")
                               .arg(cli, db_path_));
  }
  return true;
}

void MainWindow::changeEvent(QEvent* event) {
  QMainWindow::changeEvent(event);
  if (event->type() != QEvent::PaletteChange) return;
  // The system switched between light and dark: every plot takes the new frame colours, once
  // the new palette has reached the children (after this event).
  QMetaObject::invokeMethod(
      this,
      [this] {
        for (QCustomPlot* plot : findChildren<QCustomPlot*>()) {
          plots::applyPlotPalette(*plot, plot->palette());
          plot->replot();
        }
      },
      Qt::QueuedConnection);
}

}  // namespace deepladder::ui
