// The frontier view while a ladder runs (tests/ui/live_fixture.h), offscreen: it refits as runs
// finish (only the changed arm's share; the history gains a point per run), the history plot
// draws one line per arm, and the suggestions beside the multiplier rank candidates and queue
// the selected one into the ladder.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "storage/database.h"
#include "ui/plots/offscreen_app.h"
#include "ui/workbench/frontier_view.h"
#include "ui/workbench/main_window.h"
#include "ui/workbench/run_monitor_view.h"
#include "ui/workbench/run_table_model.h"
#include "ui/workbench/suggestion_table_model.h"
#include "ui/workbench/suggestions_panel.h"

#undef slots  // Qt's keyword; core/ladder/ladder_spec.h (below) has a field of that name
#include "fitting/suggest.h"
#include "tests/ui/live_fixture.h"

namespace deepladder::ui {
namespace {

class LiveView : public ::testing::Test {
 protected:
  void SetUp() override {
    plots::ensureGuiApplication();
    QCoreApplication::setOrganizationName("deepladder-test");
    db_path_ = dir_.filePath("live.db");
    queued_ = testing::buildLiveLadder(db_path_.toStdString(), dir_.filePath("work").toStdString());
  }
  std::vector<storage::RunSummary> runs() const {
    return storage::Database::open(db_path_.toStdString(), true)->listRuns();
  }
  QTemporaryDir dir_;
  QString db_path_;
  int64_t queued_ = 0;
};

int armIndex(const fitting::FrontierResult& r, const std::string& arm) {
  for (size_t i = 0; i < r.arms.size(); ++i)
    if (r.arms[i].arm == arm) return static_cast<int>(i);
  return -1;
}

TEST_F(LiveView, FrontierHistoryAndMultiplierFollowRunsAsTheyFinish) {
  MainWindow window;
  ASSERT_TRUE(window.openDatabase(db_path_, true));
  FrontierView& view = *window.frontier();
  view.reloadSourcesNow();  // the list arrives in the background otherwise
  view.sourceChoice()->setCurrentText("live");
  RunTableModel model;
  model.setRuns(runs(), 1.8e9);
  QSignalSpy fitted(&view, &FrontierView::fitted);
  view.followRuns(model);
  ASSERT_TRUE(fitted.wait(60000));
  ASSERT_TRUE(view.result().has_value());
  const fitting::FrontierResult before = *view.result();
  const int deep = armIndex(before, "deep");
  ASSERT_GE(deep, 0);
  EXPECT_EQ(before.arms[deep].n_points, 4);
  EXPECT_EQ(view.history().size(), 9u);  // one point per finished run

  // Nothing finished since: following the same runs fits nothing.
  view.followRuns(model);
  EXPECT_FALSE(fitted.wait(300));

  // deep's last run finishes in another process: the view refits, deep gains its point,
  // vanilla's fit is the very same, the history gains a point at the new compute spent.
  testing::finishQueuedRun(db_path_.toStdString(), queued_);
  model.setRuns(runs(), 1.8e9);
  view.followRuns(model);
  ASSERT_TRUE(fitted.wait(60000));
  const fitting::FrontierResult& after = *view.result();
  EXPECT_EQ(after.arms[deep].n_points, 5);
  EXPECT_NE(after.arms[deep].gamma, before.arms[deep].gamma);
  EXPECT_EQ(after.arms[0].gamma, before.arms[0].gamma);
  ASSERT_EQ(view.history().size(), 10u);
  const auto& last = view.history().back();
  EXPECT_GT(last.compute_spent, view.history()[8].compute_spent);
  ASSERT_EQ(last.arms.size(), 1u);
  // The history's newest point is the multiplier view's projection at 1e26 (the same point fit;
  // its interval is the live projection's, from resampled residuals as `run` and `watch` print
  // it, while the multiplier view shows `fit`'s, from resampled runs).
  const auto& projected = after.multipliers[0].projected.back();
  EXPECT_EQ(projected.compute, 1e26);
  EXPECT_NEAR(last.arms[0].multiplier, projected.multiplier, 1e-9 * projected.multiplier);
  EXPECT_FALSE(after.residual_bootstrap);

  // The history plot: a line with its band per arm, plus the 1x line.
  QCustomPlot& history = *view.historyPlot();
  int lines = 0;
  for (int g = 0; g < history.graphCount(); ++g)
    if (history.graph(g)->name().startsWith("deep: ")) {
      ++lines;
      // From deep's second run on (vanilla's five ended first): after 7, 8, 9 and 10 runs.
      EXPECT_EQ(history.graph(g)->dataCount(), 4);
    }
  EXPECT_EQ(lines, 1);
}

TEST_F(LiveView, SuggestionsRankCandidatesAndQueueTheSelectedOne) {
  FrontierView view;
  view.setDatabase(db_path_);
  view.reloadSourcesNow();
  view.sourceChoice()->setCurrentText("live");
  SuggestionsPanel& panel = *view.suggestions();
  panel.suggestNow(/*blocking=*/true);
  SuggestionTableModel& model = *panel.model();
  ASSERT_GT(model.rowCount(), 3) << panel.statusLabel()->text().toStdString();
  // Deep's missing largest rung is a grid candidate; larger sizes are offered too.
  bool grid = false, larger = false;
  for (int row = 0; row < model.rowCount(); ++row) {
    const auto* s = model.suggestionAt(row);
    grid = grid || s->candidate.run.name == "deep-d6-s1";
    larger = larger || s->candidate.kind == ladder::CandidateKind::kLargerSize;
  }
  EXPECT_TRUE(grid);
  EXPECT_TRUE(larger);
  EXPECT_EQ(model.headerData(SuggestionTableModel::kCost, Qt::Horizontal, Qt::DisplayRole),
            QVariant("FLOPs"));
  EXPECT_FALSE(
      model.data(model.index(0, SuggestionTableModel::kWhy), Qt::DisplayRole).toString().isEmpty());

  // Queue the first larger size.
  int row = 0;
  while (model.suggestionAt(row)->candidate.kind != ladder::CandidateKind::kLargerSize) ++row;
  const std::string name = model.suggestionAt(row)->candidate.run.name;
  EXPECT_FALSE(panel.queueButton()->isEnabled());
  panel.table()->selectRow(row);
  EXPECT_TRUE(panel.queueButton()->isEnabled());
  QSignalSpy queued(&panel, &SuggestionsPanel::queued);
  panel.queueSelected(/*blocking=*/true);
  ASSERT_EQ(queued.count(), 1) << panel.statusLabel()->text().toStdString();
  bool found = false;
  for (const auto& s : runs())
    if (s.run.name == name) {
      found = true;
      EXPECT_EQ(s.run.status, RunStatus::kQueued);
      EXPECT_EQ(s.ladder_name, "live");
    }
  EXPECT_TRUE(found) << name;
}

}  // namespace
}  // namespace deepladder::ui
