// The deepladder-gui main window: one tab per view (Runs, Compare, Frontier, Lens, Serial
// task, Designer) over one database; File menu to open a database and export the current
// plot (png/svg/pdf) or the scaling table (md/csv/tex/json); window layout, last database and
// tab remembered with QSettings; a clear dialog for a database that cannot be opened. The window
// can own a scheduler (the Runs view's InProcessScheduler); closing it while its runs are running
// asks whether to hand them to a headless `deepladder resume` or stop them (resumable); either
// way the window goes at once and the runs stop behind it (main_window_close.cpp).
#pragma once

#include <QMainWindow>

class QTabWidget;
class QCustomPlot;
class QLabel;
class QSettings;

namespace deepladder::ui {

class RunMonitorView;
class CompareView;
class FrontierView;
class LensView;
class SerialTaskView;
class LadderDesignerView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  enum View { kRuns, kCompare, kFrontier, kLens, kSerialTask, kDesigner, kViewCount };

  explicit MainWindow(QWidget* parent = nullptr);
  // Opens `path`; on failure shows the problem in a dialog (or, with quiet, only returns false).
  bool openDatabase(const QString& path, bool quiet = false);
  void showView(View view);
  // The plot export would write from the current view (the first when a view has two).
  QCustomPlot* currentPlot() const;
  // Throws UserError on a bad path/format.
  void exportPlot(const QString& path);
  void exportTable(const QString& path);
  // Stops the window's own scheduler cleanly (running runs end interrupted) and waits for it;
  // with `hand_off`, then starts a detached `deepladder resume` that carries the runs on.
  // False when it did not stop within `wait_ms`.
  bool stopOwnScheduler(bool hand_off, int wait_ms = 60000);
  // True between a close that stops the window's scheduler and the scheduler's end (the window
  // is hidden meanwhile).
  bool closing() const { return closing_; }
  // Designer's Run: queue the ladder and run it with the window's scheduler (dialog on failure).
  bool runLadderText(const QString& toml, bool quiet = false);

  RunMonitorView* runs() const { return runs_; }
  CompareView* compare() const { return compare_; }
  FrontierView* frontier() const { return frontier_; }
  LensView* lens() const { return lens_; }
  SerialTaskView* serialTask() const { return serial_; }
  LadderDesignerView* designer() const { return designer_; }
  // The status bar's database label: the file's name, its full path as the tooltip.
  QLabel* databaseLabel() const { return db_label_; }

 protected:
  void closeEvent(QCloseEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void buildMenus();
  void restoreLayout(QSettings& settings);
  void saveLayout(QSettings& settings) const;
  void refreshAll();
  // Closing while the window's scheduler runs: hides the window, asks the scheduler to stop and
  // returns; finishClosing() closes for good once it has stopped.
  void beginClosing(bool hand_off);
  void finishClosing(bool hand_off);
  bool closing_ = false;  // hidden, waiting for the scheduler to stop
  QString db_path_;
  QTabWidget* tabs_;
  RunMonitorView* runs_;
  CompareView* compare_;
  FrontierView* frontier_;
  LensView* lens_;
  SerialTaskView* serial_;
  LadderDesignerView* designer_;
  QLabel* db_label_;
};

}  // namespace deepladder::ui
