// The Frontier view as a view of the fit session (fitting/session/frontier_session.h), offscreen
// with a real window and a real SQLite file: its table is the one `fit` prints for the same
// ladder (through the session `fit` uses and, when the CLI is built, through `deepladder fit`
// itself); the fit table sorts by number and copies as TSV and Markdown; in the middle of a ladder
// (tests/ui/live_fixture.h with only some runs finished) it keeps the declared baseline, draws
// every measured point and says per arm what is missing; the status bar names the database by its
// file; the history plot's axis follows the intervals, clipped, and says so.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "fitting/scaling_table.h"
#include "fitting/session/fit_session.h"
#include "storage/database.h"
#include "tests/ui/fixture_database.h"
#include "ui/plots/history_plot.h"
#include "ui/plots/offscreen_app.h"
#include "ui/workbench/fit_table_model.h"
#include "ui/workbench/fit_table_view.h"
#include "ui/workbench/frontier_view.h"
#include "ui/workbench/main_window.h"

#undef slots  // Qt's keyword; core/ladder/ladder_spec.h (below) has a field of that name
#include "core/ladder/ladder_spec.h"
#include "storage/ladder_queue.h"
#include "tests/ui/live_fixture.h"

namespace deepladder::ui {
namespace {

// The rows of the first Markdown table in `text` whose header starts with "| arm |", split into
// cells (header first, separator left out).
std::vector<std::vector<std::string>> markdownRows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  size_t at = text.find("| arm |");
  while (at != std::string::npos && at < text.size() && text[at] == '|') {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end == std::string::npos ? end : end + 1;
    if (line.rfind("|---", 0) == 0) continue;
    std::vector<std::string> cells;
    size_t from = 2;  // past "| "
    while (from < line.size()) {
      const size_t bar = line.find(" |", from);
      if (bar == std::string::npos) break;
      cells.push_back(line.substr(from, bar - from));
      from = bar + 3;  // past " | "
    }
    rows.push_back(cells);
  }
  return rows;
}

// The model's header and rows as text, in its own order.
std::vector<std::vector<std::string>> modelRows(const FitTableModel& model) {
  std::vector<std::vector<std::string>> rows(1);
  for (int c = 0; c < model.columnCount(); ++c)
    rows[0].push_back(
        model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString().toStdString());
  for (int r = 0; r < model.rowCount(); ++r) {
    rows.emplace_back();
    for (int c = 0; c < model.columnCount(); ++c)
      rows.back().push_back(model.index(r, c).data().toString().toStdString());
  }
  return rows;
}

class FrontierSession : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { plots::ensureGuiApplication(); }
  void SetUp() override {
    QCoreApplication::setOrganizationName("deepladder-test");
    ASSERT_TRUE(dir_.isValid());
  }
  QTemporaryDir dir_;
};

TEST_F(FrontierSession, ViewAndFitPrintTheSameTable) {
  const QString db_path = dir_.filePath("fixture.db");
  testing::buildFixtureDatabase(db_path.toStdString());
  MainWindow window;
  ASSERT_TRUE(window.openDatabase(db_path, true));
  FrontierView& view = *window.frontier();
  view.reloadSourcesNow();
  view.bootstrapChoice()->setValue(200);
  view.fitNow(/*blocking=*/true);
  ASSERT_TRUE(view.result().has_value()) << view.statusLabel()->text().toStdString();
  const auto shown = modelRows(*view.fitTable()->fitModel());
  ASSERT_EQ(shown.size(), 3u);  // header, vanilla, growth
  if (const char* shots = std::getenv("DEEPLADDER_SCREENSHOT_DIR")) {
    window.resize(1500, 950);
    window.showView(MainWindow::kFrontier);
    view.grab().save(QString::fromUtf8(shots) + "/frontier_fixture.png");
  }

  // `fit --db fixture.db --ladder fixture --bootstrap 200`, as cmd_fit runs it: a read-only
  // session.
  auto session = session::FitSession::open(db_path.toStdString(), "fixture",
                                           session::DatabaseAccess::kReadOnly);
  fitting::FrontierOptions options = fitting::defaultFrontierOptions();
  options.bootstrap = 200;
  const fitting::FrontierResult fit = session->fit(session->table(), options);
  EXPECT_EQ(markdownRows(fitting::scalingTableMarkdown(fit)), shown);
  EXPECT_TRUE(view.tableText().toStdString().find(fitting::scalingTableMarkdown(fit)) == 0)
      << "the view's Markdown is fit's, from its first line";

  // And through the CLI itself when it is built.
  const QString cli = QStringLiteral(DEEPLADDER_BINARY_DIR "/bin/deepladder");
  if (!QFileInfo(cli).isExecutable()) GTEST_SKIP() << "deepladder not built: " << cli.toStdString();
  QProcess process;
  process.start(cli, {"fit", "--db", db_path, "--ladder", "fixture", "--bootstrap", "200"});
  ASSERT_TRUE(process.waitForFinished(120000));
  ASSERT_EQ(process.exitCode(), 0) << process.readAllStandardError().toStdString();
  EXPECT_EQ(markdownRows(process.readAllStandardOutput().toStdString()), shown);
}

TEST_F(FrontierSession, FitTableSortsByNumberAndCopiesTsvAndMarkdown) {
  FitTableView view;
  fitting::TableGrid grid;
  grid.header = {"arm", "gamma +- se", "flags"};
  grid.rows = {{{"vanilla"}, {"10 +- 1", 10.0, "se 1"}, {""}},
               {{"growth"}, {"9 +- 1", 9.0, ""}, {"at bound: E", fitting::kNaN, "e_at_bound"}},
               {{"deep"}, {"0.5 +- 0.1", 0.5, ""}, {""}}};
  view.fitModel()->setGrid(grid);
  EXPECT_EQ(view.fitModel()->index(0, 1).data(Qt::ToolTipRole).toString(), "se 1");
  // Unsorted: the fit's order.
  EXPECT_EQ(view.copyText(FitTableView::CopyFormat::kTsv).toStdString(),
            "arm\tgamma +- se\tflags\nvanilla\t10 +- 1\t\ngrowth\t9 +- 1\tat bound: E\n"
            "deep\t0.5 +- 0.1\t\n");
  // By number, not by text ("10" would come before "9" as text).
  view.sortByColumn(1, Qt::AscendingOrder);
  EXPECT_EQ(view.proxy()->index(0, 0).data().toString(), "deep");
  EXPECT_EQ(view.proxy()->index(1, 0).data().toString(), "growth");
  EXPECT_EQ(view.proxy()->index(2, 0).data().toString(), "vanilla");
  EXPECT_EQ(view.copyText(FitTableView::CopyFormat::kMarkdown).toStdString(),
            "| arm | gamma +- se | flags |\n|---|---|---|\n| deep | 0.5 +- 0.1 |  |\n"
            "| growth | 9 +- 1 | at bound: E |\n| vanilla | 10 +- 1 |  |\n");
  // The selected rows only, in the order shown; Ctrl+C puts them on the clipboard as TSV.
  view.selectRow(2);
  EXPECT_EQ(view.copyText(FitTableView::CopyFormat::kTsv).toStdString(),
            "arm\tgamma +- se\tflags\nvanilla\t10 +- 1\t\n");
  view.show();
  view.setFocus();
  QApplication::clipboard()->clear();
  QTest::keySequence(&view, QKeySequence::Copy);
  EXPECT_EQ(QApplication::clipboard()->text().toStdString(),
            "arm\tgamma +- se\tflags\nvanilla\t10 +- 1\t\n");
}

// Finishes the runs of `arm` at `sizes` of the live ladder in `db_path`, on its laws.
void finishRuns(const std::string& db_path, const std::string& arm,
                const std::vector<std::string>& sizes) {
  const ladder::LadderSpec spec = ladder::parseLadder(testing::kLiveLadder, "live.toml");
  auto db = storage::Database::open(db_path);
  double when = 1.7e9;
  for (const auto& s : db->listRuns())
    for (const auto& size : sizes)
      if (s.run.arm == arm && s.run.size == size)
        for (const auto& p : spec.runs)
          if (p.name == s.run.name)
            db->markRunDone(s.run.id, RunStatus::kFinished,
                            testing::liveLoss(arm, p.flops, s.run.id), 100, 1000, p.flops,
                            when += 60, "");
}

// Data points of the frontier plot's graphs whose legend name contains `text`.
int pointsNamed(QCustomPlot& plot, const QString& text) {
  int n = 0;
  for (int g = 0; g < plot.graphCount(); ++g)
    if (plot.graph(g)->name().contains(text)) n += plot.graph(g)->dataCount();
  return n;
}

// The live ladder queued into a new database at `path`, no run finished.
std::string queueLiveLadder(const QTemporaryDir& dir, const QString& name) {
  const std::string path = dir.filePath(name).toStdString();
  const ladder::LadderSpec spec = ladder::parseLadder(testing::kLiveLadder, "live.toml");
  auto db = storage::Database::open(path);
  storage::enqueueLadder(*db, spec, dir.filePath(name + "-work").toStdString());
  return path;
}

TEST_F(FrontierSession, MidLadderKeepsTheDeclaredBaselineAndSaysWhatIsMissing) {
  // The largest rungs first, and none of the baseline's.
  const std::string db_path = queueLiveLadder(dir_, "live.db");
  finishRuns(db_path, "deep", {"d4", "d5", "d6"});
  MainWindow window;
  window.resize(1500, 950);
  ASSERT_TRUE(window.openDatabase(QString::fromStdString(db_path), true));
  window.showView(MainWindow::kFrontier);
  FrontierView& view = *window.frontier();
  view.reloadSourcesNow();
  view.sourceChoice()->setCurrentText("live");
  EXPECT_EQ(view.baselineChoice()->currentText(), "vanilla") << "the declared baseline";
  view.fitNow(/*blocking=*/true);
  EXPECT_FALSE(view.result().has_value());
  EXPECT_EQ(pointsNamed(*view.frontierPlot(), "deep: not fitted yet"), 3) << "every point drawn";
  const std::string progress = view.progressLabel()->text().toStdString();
  EXPECT_NE(progress.find("vanilla: 0 of 5 rungs finished"), std::string::npos) << progress;
  EXPECT_NE(progress.find("deep: 3 of 5 rungs finished"), std::string::npos) << progress;
  EXPECT_EQ(view.statusLabel()->text().indexOf("Fit failed"), -1);
  if (const char* shots = std::getenv("DEEPLADDER_SCREENSHOT_DIR"))
    view.grab().save(QString::fromUtf8(shots) + "/frontier_mid_ladder_no_baseline.png");

  // Three of the baseline's rungs and one of deep's: the baseline is fitted, deep drawn with
  // what it misses.
  const std::string later_path = queueLiveLadder(dir_, "later.db");
  finishRuns(later_path, "vanilla", {"d2", "d3", "d4"});
  finishRuns(later_path, "deep", {"d6"});
  ASSERT_TRUE(window.openDatabase(QString::fromStdString(later_path), true));
  view.reloadSourcesNow();
  view.sourceChoice()->setCurrentText("live");
  view.fitNow(/*blocking=*/true);
  ASSERT_TRUE(view.result().has_value()) << view.statusLabel()->text().toStdString();
  EXPECT_EQ(view.result()->baseline, "vanilla");
  EXPECT_EQ(view.fitTable()->fitModel()->rowCount(), 1);
  EXPECT_EQ(pointsNamed(*view.frontierPlot(), "vanilla (baseline)"), 3);
  EXPECT_EQ(pointsNamed(*view.frontierPlot(), "deep: not fitted yet"), 1);
  const std::string later = view.progressLabel()->text().toStdString();
  EXPECT_NE(later.find("deep: 1 of 5 rungs finished"), std::string::npos) << later;
  EXPECT_NE(later.find("vanilla: 3 of 5 rungs finished"), std::string::npos) << later;
  if (const char* shots = std::getenv("DEEPLADDER_SCREENSHOT_DIR"))
    view.grab().save(QString::fromUtf8(shots) + "/frontier_mid_ladder.png");
}

TEST_F(FrontierSession, StatusBarShowsTheDatabaseFileNameWithItsPathOnHover) {
  const QString db_path = dir_.filePath("named.db");
  testing::buildFixtureDatabase(db_path.toStdString());
  MainWindow window;
  ASSERT_TRUE(window.openDatabase(db_path, true));
  EXPECT_EQ(window.databaseLabel()->text(), "named.db");
  EXPECT_EQ(window.databaseLabel()->toolTip(), QFileInfo(db_path).absoluteFilePath());
}

// The y range and the clip note of a history whose one arm projects `m` with interval [lo, hi].
struct Drawn {
  QCPRange y;
  QString note;
};
Drawn drawOneArmHistory(double m, double lo, double hi) {
  std::vector<fitting::ProjectionSnapshot> history;
  for (int i = 1; i <= 3; ++i) {
    fitting::ProjectionSnapshot s;
    s.target = 1e26;
    s.runs = 3 + i;
    s.compute_spent = 1e18 * i;
    s.baseline = "vanilla";
    fitting::ArmProjection a;
    a.arm = "deep";
    a.multiplier = m;
    a.lo = lo;
    a.hi = hi;
    s.arms.push_back(a);
    history.push_back(s);
  }
  QCustomPlot plot;
  plot.resize(500, 350);
  plots::drawHistory(plot, {history, {}});
  Drawn d{plot.yAxis->range(), {}};
  for (int i = 0; i < plot.itemCount(); ++i)
    if (auto* text = qobject_cast<QCPItemText*>(plot.item(i)))
      if (text->objectName() == "clip-note") d.note = text->text();
  return d;
}

TEST_F(FrontierSession, HistoryAxisFollowsTheIntervalsClippedAndSaysSo) {
  // An early interval spanning 25 decades: the axis stays near the multipliers, and says so.
  const Drawn wide = drawOneArmHistory(1.5, 1e-15, 1e10);
  EXPECT_GE(wide.y.lower, 1.0 / plots::kIntervalClip / 2);
  EXPECT_LE(wide.y.upper, 1.5 * plots::kIntervalClip * 2);
  EXPECT_TRUE(wide.note.contains("intervals clipped to")) << wide.note.toStdString();
  // A narrow interval: the axis follows it, nothing is clipped.
  const Drawn narrow = drawOneArmHistory(1.5, 1.3, 1.8);
  EXPECT_LE(narrow.y.lower, 1.0);
  EXPECT_GE(narrow.y.upper, 1.8);
  EXPECT_LE(narrow.y.upper, 2.0);
  EXPECT_TRUE(narrow.note.isEmpty()) << narrow.note.toStdString();
}

}  // namespace
}  // namespace deepladder::ui
