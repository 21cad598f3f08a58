// Workbench benchmark: a generated database of RUNS runs x POINTS points of
// train/loss (default 1,000 x 10,000 = 10 million metric rows, plus val/loss every 10th step),
// then: time from start to a usable window (constructed, database open, run table filled),
// overlaying 100 runs in Compare (load and draw), a pan and a zoom redraw, and peak RSS.
// Each figure is printed next to the target as a ratio. Offscreen platform.
// Usage: gui_bench [runs] [points]
#include <qcustomplot.h>
#include <sys/resource.h>

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QTableView>
#include <QTemporaryDir>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "tests/ui/fixture_database.h"
#include "ui/plots/curves_plot.h"
#include "ui/plots/offscreen_app.h"
#include "ui/workbench/compare_view.h"
#include "ui/workbench/main_window.h"
#include "ui/workbench/run_monitor_view.h"
#include "ui/workbench/run_table_model.h"

using namespace deepladder;

static double peakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

static void report(const char* what, double value, double target, const char* unit) {
  std::printf("%-44s %10.1f %-3s target < %6.0f %-3s (%.2f of target) %s\n", what, value, unit,
              target, unit, value / target, value < target ? "OK" : "MISSED");
}

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int points = argc > 2 ? std::atoi(argv[2]) : 10000;
  plots::ensureGuiApplication();
  QTemporaryDir dir;
  const QString db = dir.filePath("bench.db");
  QElapsedTimer timer;
  timer.start();
  ui::testing::FixtureOptions options;
  options.points_per_curve = points;
  options.extra_runs = runs;
  ui::testing::buildFixtureDatabase(db.toStdString(), options);
  std::printf("generated %d runs x %d points (%.1f M metric rows) in %.1f s\n", runs, points,
              (runs + 9) * points * 1.1 / 1e6, timer.elapsed() / 1000.0);

  timer.restart();
  ui::MainWindow window;
  window.resize(1280, 820);
  window.show();
  window.openDatabase(db, true);
  while (window.runs()->model()->rowCount() == 0 && timer.elapsed() < 20000)
    QApplication::processEvents(QEventLoop::AllEvents, 10);
  const double usable_ms = timer.elapsed();
  report("start to usable window (runs listed)", usable_ms, 2000, "ms");

  window.showView(ui::MainWindow::kCompare);
  ui::CompareView* compare = window.compare();
  compare->reloadRuns();
  std::vector<int64_t> ids;
  for (int64_t id = 10; id < 110; ++id) ids.push_back(id);
  compare->setCheckedRuns(ids);
  QApplication::processEvents();
  // Switch train/loss (10k points per run) and measure the load and the draw separately.
  qint64 draw_ms = -1;
  QObject::connect(compare, &ui::CompareView::curvesDrawn, [&](int, qint64 ms) { draw_ms = ms; });
  timer.restart();
  compare->findChild<QComboBox*>()->setCurrentText("train/loss");
  compare->loadNow();
  const double load_and_draw = timer.elapsed();
  std::printf("overlay 100 runs: load + draw %.0f ms (database read %.0f ms)\n", load_and_draw,
              load_and_draw - draw_ms);
  report("overlay 100 runs, draw", static_cast<double>(draw_ms), 100, "ms");

  QCustomPlot* plot = compare->plot();
  const int reps = 20;
  timer.restart();
  for (int i = 0; i < reps; ++i) {
    plot->xAxis->moveRange(plot->xAxis->range().size() * 0.01 * (i % 2 ? -1 : 1));
    plot->replot(QCustomPlot::rpImmediateRefresh);
  }
  report("pan redraw (100 runs, mean of 20)", timer.elapsed() / double(reps), 50, "ms");
  timer.restart();
  for (int i = 0; i < reps; ++i) {
    plot->xAxis->scaleRange(i % 2 ? 1.25 : 0.8);
    plot->replot(QCustomPlot::rpImmediateRefresh);
  }
  report("zoom redraw (100 runs, mean of 20)", timer.elapsed() / double(reps), 50, "ms");
  // Where a redraw's time goes: decimating every series to the new range, and QCustomPlot
  // painting what decimation handed it.
  timer.restart();
  size_t handed = 0;
  for (int i = 0; i < reps; ++i) handed = plots::redecimateCurves(*plot);
  const double decimate_ms = timer.elapsed() / double(reps);
  timer.restart();
  for (int i = 0; i < reps; ++i) plot->replot(QCustomPlot::rpImmediateRefresh);
  const double paint_ms = timer.elapsed() / double(reps);
  std::printf("  of which: decimation %.1f ms (%zu points to %d graphs), painting %.1f ms\n",
              decimate_ms, handed, plot->graphCount(), paint_ms);
  report("peak RSS", peakRssMiB(), 1024, "MiB");
  window.hide();
  std::fflush(stdout);
  std::_Exit(0);  // skip the close dialog and teardown of 1,000 runs
}
