// Workbench benchmark: the GUI thread's worst frame time (the longest gap between the ticks of a
// 16 ms QTimer: a stalled event loop delays them) while the Lens and Serial-task views load a
// large database: the fixture with RUNS extra runs x POINTS train/loss points (default 1,000 x
// 10,000: 11 million metric rows), plus a ladder of LADDER runs each with logit-lens profiles at
// 20 evals x 48 blocks and serial-task evals at 10 steps x 4 modulus sizes x 7 T x 3 tasks.
// Two ways, same database, same process:
//   on the GUI thread: the loads the views used to run in their slots (run lists, every run's
//                      profiles, the evals) as one blocking call, without the drawing (which
//                      the views also did there): a lower bound of the stall they caused;
//   in the background: setDatabase() + showRun() on the views as they are now (runInBackground).
// Goal (judged in smoke mode too): both views end up loaded. Offscreen platform.
// Usage: gui_stall_bench [--smoke] [runs] [points] [ladder_runs]
#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "storage/database.h"
#include "storage/run_plot_data.h"
#include "tests/bench/bench_goals.h"
#include "tests/bench/gui_bench_database.h"
#include "ui/workbench/database_access.h"
#include "ui/workbench/lens_view.h"
#include "ui/workbench/serial_task_data.h"
#include "ui/workbench/serial_task_view.h"

using namespace deepladder;

namespace {

// A ladder whose runs all have lens profiles and serial-task evals; returns its first run.
int64_t addLensLadder(const std::string& path, int runs) {
  auto db = storage::Database::open(path);
  storage::Transaction tx(*db);
  const int64_t ladder = db->upsertLadder("lens-bench", "[ladder]\nname = \"lens-bench\"\n", "lb");
  int64_t first = 0;
  for (int i = 0; i < runs; ++i) {
    storage::RunRecord r;
    r.ladder_id = ladder;
    r.arm = i % 2 ? "growth" : "vanilla";
    r.size = "d" + std::to_string(2 + i % 8);
    r.name = "lens-" + std::to_string(i);
    r.status = RunStatus::kFinished;
    r.config_json = R"({"squaring":{"tier":"E1"}})";
    r.flops = 1e17 * (1 + i);
    const int64_t id = db->insertRun(r);
    if (!first) first = id;
    std::vector<storage::LensRow> lens;
    for (int e = 1; e <= 20; ++e)
      for (int b = 0; b < 48; ++b)
        lens.push_back({id, e * 100, b, b < 24 ? 1.0 + b * 0.2 : (48 - b) * 0.1 * e / 20.0});
    db->writeLens(lens);
    std::vector<storage::EvalRow> evals;
    for (int e = 1; e <= 10; ++e)
      for (int64_t bits : {7, 8, 9, 10})
        for (int64_t t : {1, 2, 4, 8, 16, 32, 64})
          for (const char* task : {"squaring/test", "squaring/ood_t", "squaring/depth"})
            evals.push_back({id, e * 100, task, bits, t, 100 / t, 100});
    db->writeEvals(evals);
  }
  tx.commit();
  return first;
}

// Runs the event loop with a 16 ms ticker until `done()` (then 100 ms more); `start` is called
// from the loop 50 ms in. Returns the longest gap between ticks, in ms.
double worstFrame(const std::function<void()>& start, const std::function<bool()>& done) {
  QElapsedTimer clock;
  clock.start();
  qint64 last = 0, worst = 0;
  QTimer ticker;
  ticker.setTimerType(Qt::PreciseTimer);
  ticker.setInterval(16);
  QObject::connect(&ticker, &QTimer::timeout, [&] {
    const qint64 now = clock.elapsed();
    worst = std::max(worst, now - last);
    last = now;
  });
  ticker.start();
  QTimer::singleShot(50, start);
  while (clock.elapsed() < 50 || !done()) QApplication::processEvents(QEventLoop::AllEvents, 5);
  const qint64 end = clock.elapsed() + 100;
  while (clock.elapsed() < end) QApplication::processEvents(QEventLoop::AllEvents, 5);
  return static_cast<double>(worst);
}

}  // namespace

int main(int argc, char** argv) {
  bench::Goals goals(bench::takeSmokeFlag(argc, argv));
  const bench::GuiBenchDatabase bench_db(argc, argv);
  const QString& db = bench_db.path();
  const int ladder_runs = argc > 3 ? std::atoi(argv[3]) : 200;
  QElapsedTimer timer;
  timer.start();
  const int64_t shown = addLensLadder(bench_db.pathString(), ladder_runs);
  std::printf("generated a %d-run lens ladder (%.2f M lens rows) in %.1f s\n", ladder_runs,
              ladder_runs * 960 / 1e6, timer.elapsed() / 1000.0);

  // First (so it pays for regenerating the tier's data, which both paths cache): the views as
  // they are now.
  ui::LensView lens;
  ui::SerialTaskView serial;
  lens.resize(900, 500);
  serial.resize(900, 500);
  lens.show();
  serial.show();
  // Laid out and painted once, empty, before the clock starts.
  QElapsedTimer settle;
  settle.start();
  while (settle.elapsed() < 300) QApplication::processEvents(QEventLoop::AllEvents, 5);
  // Each view lists its runs and shows the first, then shows the big ladder's first run.
  int lens_loads = 0, serial_loads = 0;
  QObject::connect(&lens, &ui::LensView::loaded, [&] {
    if (++lens_loads == 1) lens.showRun(shown);
  });
  QObject::connect(&serial, &ui::SerialTaskView::loaded, [&] {
    if (++serial_loads == 1) serial.showRun(shown);
  });
  qint64 loaded_ms = 0;
  const double background_ms = worstFrame(
      [&] {
        timer.restart();
        lens.setDatabase(db);
        serial.setDatabase(db);
      },
      [&] {
        const bool done = lens_loads >= 2 && serial_loads >= 2;
        if (done && !loaded_ms) loaded_ms = timer.elapsed();
        return done;
      });
  // On the GUI thread, the same reads as the views' slots did them: each view's run list and
  // first run, then the big ladder's run (the lens view reads every run of the run's ladder).
  bool blocking_done = false;
  const double blocking_ms = worstFrame(
      [&] {
        auto database = ui::openExistingDatabase(db, true);
        auto lensOfLadder = [&](int64_t run) {  // what the lens view reads to show `run`
          storage::runLabel(*database, run);
          storage::lensProfiles(*database, run);
          for (const auto& s : database->listRuns(database->run(run)->ladder_id))
            storage::lensProfiles(*database, s.run.id);
        };
        lensOfLadder(ui::runChoices(*database, "lens").front().id);
        ui::loadSerialTask(*database, ui::runChoices(*database, "evals").front().id);
        lensOfLadder(shown);
        ui::loadSerialTask(*database, shown);
        blocking_done = true;
      },
      [&] { return blocking_done; });

  std::printf("%-52s %8.0f ms\n", "worst frame, loads on the GUI thread (as before)", blocking_ms);
  std::printf("%-52s %8.0f ms (views loaded and drawn in %lld ms)\n",
              "worst frame, loads in the background (now)", background_ms,
              static_cast<long long>(loaded_ms));
  goals.holds("the lens and serial-task views loaded their runs in the background",
              lens_loads >= 2 && serial_loads >= 2);
  const int code = goals.exitCode();
  std::fflush(stdout);
  std::_Exit(code);
}
