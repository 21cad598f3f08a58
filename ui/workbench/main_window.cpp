// The deepladder-gui main window (see main_window.h).
#include "ui/workbench/main_window.h"

#include <qcustomplot.h>

#include <QAction>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

#include "core/errors.h"
#include "fitting/scaling_table.h"
#include "storage/database.h"
#include "ui/plots/plot_export.h"
#include "ui/workbench/compare_view.h"
#include "ui/workbench/database_access.h"
#include "ui/workbench/frontier_view.h"
#include "ui/workbench/ladder_designer_view.h"
#include "ui/workbench/lens_view.h"
#include "ui/workbench/run_monitor_view.h"
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
  buildMenus();

  connect(runs_, &RunMonitorView::compareRequested, this, [this](std::vector<int64_t> ids) {
    compare_->reloadRuns();
    compare_->setCheckedRuns(ids);
    showView(kCompare);
  });
  connect(tabs_, &QTabWidget::currentChanged, this, [this](int index) {
    if (index == kCompare) compare_->reloadRuns();
  });

  QSettings settings;
  if (!restoreGeometry(settings.value("window/geometry").toByteArray())) resize(1280, 820);
  restoreState(settings.value("window/state").toByteArray());
  tabs_->setCurrentIndex(settings.value("window/tab", 0).toInt());
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
  DatabaseProblem problem;
  auto db = tryOpenDatabase(path, /*read_only=*/true, &problem);
  if (!db) {
    if (!quiet) QMessageBox::critical(this, problem.title, problem.message);
    statusBar()->showMessage(problem.title);
    return false;
  }
  db.reset();
  db_path_ = QFileInfo(path).absoluteFilePath();
  setWindowTitle(tr("deepladder — %1").arg(QFileInfo(path).fileName()));
  db_label_->setText(db_path_);
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

QWidget* MainWindow::viewWidget(View view) const {
  return tabs_->widget(view);
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

void MainWindow::closeEvent(QCloseEvent* event) {
  const int running = runs_->runningCount();
  if (running > 0) {
    QMessageBox box(QMessageBox::Question, tr("Runs are still running"),
                    tr("%n run(s) are running. They belong to a separate `deepladder run` "
                       "process and can keep going without this window.",
                       "", running),
                    QMessageBox::NoButton, this);
    QPushButton* keep = box.addButton(tr("Keep running"), QMessageBox::AcceptRole);
    QPushButton* stop = box.addButton(tr("Stop them"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(keep);
    box.exec();
    if (box.clickedButton() == stop) {
      const QString cli = QDir(QCoreApplication::applicationDirPath()).filePath("deepladder");
      for (const auto& id : std::vector<int64_t>{}) (void)id;
      QProcess::startDetached(cli, {"cancel", "all", "--db", db_path_});
    } else if (box.clickedButton() != keep) {
      event->ignore();
      return;
    }
  }
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  settings.setValue("window/tab", tabs_->currentIndex());
  event->accept();
}

}  // namespace deepladder::ui
