// Compare's grouped overlay benchmark: a generated database of 100 runs (5 arms x 5 lr_mult
// values x 4 seeds: 25 groups of 4) x POINTS train/loss points each (default 10,000), then the
// 100 runs checked in Compare, grouped by arm x train.lr_mult with the seeds collapsed to a mean
// and a min-max band, timed: the draw (grouping, collapsing and QCustomPlot's replot: what a
// change of the group-by options, the band or a log axis costs) and load + draw (reading the
// curves through the metric pyramid too). Median of 5. Offscreen platform.
// Usage: gui_group_bench [points]
#include <qcustomplot.h>

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "core/run_status.h"
#include "storage/database.h"
#include "tests/bench/bench_goals.h"
#include "ui/plots/offscreen_app.h"
#include "ui/workbench/compare_view.h"
#include "ui/workbench/grouped_curves.h"

using namespace deepladder;

namespace {

std::vector<int64_t> buildDatabase(const std::string& path, int points) {
  auto db = storage::Database::open(path);
  std::vector<int64_t> ids;
  const char* arms[] = {"vanilla", "growth", "operator", "looped", "wide"};
  const double lrs[] = {0.25, 0.5, 1, 2, 4};
  for (int a = 0; a < 5; ++a) {
    storage::Transaction tx(*db);
    for (double lr : lrs)
      for (int seed = 1; seed <= 4; ++seed) {
        storage::RunRecord r;
        r.arm = arms[a];
        r.seed = seed;
        char lr_text[16];
        std::snprintf(lr_text, sizeof lr_text, "%g", lr);
        r.name = std::string(arms[a]) + "-lr_mult" + lr_text + "-s" + std::to_string(seed);
        r.status = RunStatus::kFinished;
        r.config_json = std::string(R"({"train":{"lr_mult":)") + lr_text + "}}";
        const int64_t id = db->insertRun(r);
        ids.push_back(id);
        const double final_loss = 2.5 + 0.1 * a + 0.05 * std::pow(std::log2(lr), 2);
        std::vector<storage::MetricRow> rows;
        rows.reserve(static_cast<size_t>(points));
        for (int i = 1; i <= points; ++i) {
          const double v =
              final_loss + 3.0 * std::exp(-i / (points / 10.0)) + 0.02 * std::sin(i * 0.7 + seed);
          rows.push_back({id, "train/loss", i, i * 1024LL, i * 1e12, v, i * 0.1});
        }
        db->writeMetrics(rows);
      }
    tx.commit();
  }
  return ids;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = deepladder::bench::takeSmokeFlag(argc, argv);  // make bench-smoke
  const int points = argc > 1 ? std::atoi(argv[1]) : smoke ? 500 : 10000;
  plots::ensureGuiApplication();
  QTemporaryDir dir;
  const QString path = dir.filePath("group-bench.db");
  QElapsedTimer timer;
  timer.start();
  const std::vector<int64_t> ids = buildDatabase(path.toStdString(), points);
  std::printf("generated 100 runs x %d points in %.1f s\n", points, timer.elapsed() / 1000.0);

  ui::CompareView view;
  view.resize(1280, 820);
  view.show();
  view.setDatabase(path);
  timer.restart();
  while (view.groupableOptions().size() < 5 && timer.elapsed() < 20000)
    QApplication::processEvents(QEventLoop::AllEvents, 10);
  view.findChild<QComboBox*>()->setCurrentText("train/loss");
  qint64 draw_ms = -1;
  QObject::connect(&view, &ui::CompareView::curvesDrawn, [&](int, qint64 ms) { draw_ms = ms; });
  view.setCheckedRuns(ids);
  view.setGroupBy({"arm", "train.lr_mult"});
  view.loadNow();
  const size_t groups = view.shownCurves().series.size();
  std::printf("groups drawn: %zu (of %zu runs), graphs %d\n", groups, view.curves().series.size(),
              view.plot()->graphCount());

  std::vector<double> draws, loads;
  for (int rep = 0; rep < 5; ++rep) {
    view.setSeedBand(rep % 2 ? SeedBand::kMinMax : SeedBand::kStdDev);  // a redraw: regroup
    draws.push_back(static_cast<double>(draw_ms));
    timer.restart();
    view.loadNow();
    loads.push_back(static_cast<double>(timer.elapsed()));
  }
  const double draw = median(draws), load = median(loads);
  std::printf("draws (ms):");
  for (double d : draws) std::printf(" %.0f", d);
  std::printf("\n");
  std::printf("%-52s %8.1f ms  target < 100 ms (%.2f of target) %s\n",
              "grouped overlay, 100 runs (25 groups x 4 seeds), draw", draw, draw / 100,
              draw < 100 ? "OK" : "MISSED");
  std::printf("%-52s %8.1f ms\n", "grouped overlay, 100 runs, load + draw (pyramid)", load);
  // Where the draw goes: grouping and collapsing the curves, then QCustomPlot's draw.
  ui::CurveGrouping grouping;
  grouping.by = {"arm", "train.lr_mult"};
  grouping.ema = view.curves().ema;
  std::vector<double> group_ms, plot_ms;
  plots::CurvesPlotInput grouped;
  for (int rep = 0; rep < 5; ++rep) {
    timer.restart();
    std::map<int64_t, OptionValues> rows;
    for (size_t i = 0; i < ids.size(); ++i)
      rows[ids[i]] = {{"arm", std::to_string(i / 20)},
                      {"train.lr_mult", std::to_string(i / 4 % 5)}};
    grouped = ui::groupCurves(view.curves(), rows, grouping);
    group_ms.push_back(timer.nsecsElapsed() / 1e6);
    timer.restart();
    plots::drawCurves(*view.plot(), grouped);
    plot_ms.push_back(timer.nsecsElapsed() / 1e6);
  }
  size_t loaded_points = 0;
  for (const auto& s : view.curves().series) loaded_points += s.x.size();
  std::printf(
      "  of which: grouping %.1f ms (%zu points of 100 curves onto 25 x %zu), drawing %.1f ms\n",
      median(group_ms), loaded_points,
      grouped.series.empty() ? size_t{0} : grouped.series[0].x.size(), median(plot_ms));
  // The same without the bands: what the band fills cost.
  for (auto& g : grouped.series) g.band_lo.clear(), g.band_hi.clear();
  plot_ms.clear();
  for (int rep = 0; rep < 5; ++rep) {
    timer.restart();
    plots::drawCurves(*view.plot(), grouped);
    plot_ms.push_back(timer.nsecsElapsed() / 1e6);
  }
  std::printf("  the same 25 means without their bands: drawing %.1f ms\n", median(plot_ms));
  std::fflush(stdout);
  return groups == 25 ? 0 : 1;
}
