// The workbench benchmarks' database (see gui_bench_database.h).
#include "tests/bench/gui_bench_database.h"

#include <QElapsedTimer>
#include <cstdio>
#include <cstdlib>

#include "tests/ui/fixture_database.h"
#include "ui/plots/offscreen_app.h"

namespace deepladder::bench {

GuiBenchDatabase::GuiBenchDatabase(int argc, char** argv)
    : runs_(argc > 1 ? std::atoi(argv[1]) : 1000) {
  const int points = argc > 2 ? std::atoi(argv[2]) : 10000;
  plots::ensureGuiApplication();
  path_ = dir_.filePath("bench.db");
  QElapsedTimer timer;
  timer.start();
  ui::testing::FixtureOptions options;
  options.points_per_curve = points;
  options.extra_runs = runs_;
  ui::testing::buildFixtureDatabase(pathString(), options);
  std::printf("generated %d runs x %d points (%.1f M metric rows) in %.1f s\n", runs_, points,
              (runs_ + 9) * points * 1.1 / 1e6, timer.elapsed() / 1000.0);
}

}  // namespace deepladder::bench
