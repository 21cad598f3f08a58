// Workbench models and views against the fixture database (fixture_database.h), offscreen:
// the run table's rows and derived columns, the poller's snapshots, clear failures for a
// missing / corrupt / newer-schema database, Compare overlays, the frontier fit and table
// export, lens and serial-task views, and the designer's live validation and plan preview.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QSettings>
#include <QShortcut>
#include <QSignalSpy>
#include <QSplitter>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "core/options/option_schema.h"
#include "storage/database.h"
#include "tests/ui/fixture_database.h"
#include "ui/plots/offscreen_app.h"
#include "ui/workbench/compare_view.h"
#include "ui/workbench/database_access.h"
#include "ui/workbench/frontier_view.h"
#include "ui/workbench/ladder_designer_view.h"
#include "ui/workbench/ladder_form.h"
#include "ui/workbench/lens_view.h"
#include "ui/workbench/main_window.h"
#include "ui/workbench/run_monitor_view.h"
#include "ui/workbench/run_poller.h"
#include "ui/workbench/run_table_model.h"
#include "ui/workbench/serial_task_view.h"
#include "ui/workbench/sweep_pane.h"

namespace deepladder::ui {
namespace {

class Workbench : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    plots::ensureGuiApplication();
    QCoreApplication::setOrganizationName("deepladder-test");
    dir_ = new QTemporaryDir;
    db_path_ = dir_->filePath("fixture.db");
    testing::buildFixtureDatabase(db_path_.toStdString());
  }
  static void TearDownTestSuite() { delete dir_; }
  static QTemporaryDir* dir_;
  static QString db_path_;
};
QTemporaryDir* Workbench::dir_ = nullptr;
QString Workbench::db_path_;

TEST_F(Workbench, RunTableShowsEveryRunWithDerivedColumns) {
  auto db = storage::Database::open(db_path_.toStdString(), true);
  RunTableModel model;
  model.setRuns(db->listRuns(), 1.7e9 + 100);
  ASSERT_EQ(model.rowCount(), 9);
  const int running = model.rowOfRun(9);
  ASSERT_GE(running, 0);
  EXPECT_EQ(model.index(running, RunTableModel::kStatus).data().toString(), "running");
  EXPECT_EQ(model.index(running, RunTableModel::kProgress).data().toString(), "25%");
  // 500 steps in 100 s, 1500 to go: 300 s.
  EXPECT_EQ(model.index(running, RunTableModel::kEta).data().toString(), "5 min 0 s");
  EXPECT_EQ(model.index(running, RunTableModel::kTokensPerSecond).data().toString(), "5120");
  EXPECT_FALSE(model.index(0, RunTableModel::kValLoss).data().toString().isEmpty());
  // Same runs again: rows updated in place, no reset.
  QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
  model.setRuns(db->listRuns(), 1.7e9 + 100);
  EXPECT_EQ(resets.count(), 0);
}

TEST_F(Workbench, RunTableTakesLiveFiguresFromTheScheduler) {
  auto db = storage::Database::open(db_path_.toStdString(), true);
  RunTableModel model;
  model.setRuns(db->listRuns(), 1.7e9 + 100);
  const int row = model.rowOfRun(9);
  ASSERT_GE(row, 0);
  QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
  // Run 9 plans 2000 steps (fixture config): step 1000 is half way.
  model.applyLiveMetric(9, 1000, 1000 * 1024, 2.5, std::nan(""), 7000, 1.7e9 + 200);
  EXPECT_EQ(changed.count(), 1);
  EXPECT_EQ(model.index(row, RunTableModel::kProgress).data().toString(), "50%");
  EXPECT_EQ(model.index(row, RunTableModel::kTrainLoss).data().toString(), "2.5000");
  EXPECT_EQ(model.index(row, RunTableModel::kValLoss).data().toString(), "3.3952")
      << "a value the line did not carry stays as it was";
  EXPECT_EQ(model.index(row, RunTableModel::kTokensPerSecond).data().toString(), "7000");
  EXPECT_FALSE(model.index(row, RunTableModel::kEta).data().toString().isEmpty());
  model.applyLiveStatus(9, RunStatus::kFinished, "");
  EXPECT_EQ(model.index(row, RunTableModel::kStatus).data().toString(), "finished");
  EXPECT_EQ(model.index(row, RunTableModel::kProgress).data().toString(), "100%");
  model.applyLiveMetric(12345, 1, 1, 1, 1, 1, 0);  // unknown run: ignored
  EXPECT_EQ(changed.count(), 2);
}

TEST_F(Workbench, PollerDeliversSnapshotsFromItsThread) {
  RunPoller poller(db_path_, 50);
  QSignalSpy spy(&poller, &RunPoller::runsLoaded);
  poller.start();
  ASSERT_TRUE(spy.wait(5000));
  const auto snapshot = spy.at(0).at(0).value<RunSnapshot>();
  EXPECT_EQ(snapshot->size(), 9u);
}

TEST_F(Workbench, OpenFailuresBecomeClearProblems) {
  DatabaseProblem p;
  EXPECT_EQ(tryOpenDatabase(dir_->filePath("missing.db"), true, &p), nullptr);
  EXPECT_EQ(p.title, "Database not found");
  EXPECT_FALSE(QFileInfo::exists(dir_->filePath("missing.db")));  // never created

  const QString junk = dir_->filePath("junk.db");
  QFile f(junk);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(QByteArray(8192, 'x'));
  f.close();
  EXPECT_EQ(tryOpenDatabase(junk, true, &p), nullptr);
  EXPECT_FALSE(p.message.isEmpty());
  EXPECT_TRUE(p.title.contains("damaged") || p.title.contains("Cannot")) << p.title.toStdString();

  const QString newer = dir_->filePath("newer.db");
  {
    auto db = storage::Database::open(newer.toStdString());
    db->execute("PRAGMA user_version = 99");
  }
  EXPECT_EQ(tryOpenDatabase(newer, true, &p), nullptr);
  EXPECT_EQ(p.title, "Database is from a newer deepladder") << p.message.toStdString();

  // A database missing a table made the workbench abort at its first query: now a dialog.
  const QString damaged = dir_->filePath("damaged.db");
  storage::Database::open(damaged.toStdString())->execute("DROP TABLE events");
  EXPECT_EQ(tryOpenDatabase(damaged, true, &p), nullptr);
  EXPECT_EQ(p.title, "Database is damaged or not a deepladder database") << p.title.toStdString();
  EXPECT_TRUE(p.message.contains("table 'events' is missing")) << p.message.toStdString();
}

TEST_F(Workbench, CompareOverlaysCheckedRunsDecimated) {
  CompareView view;
  view.resize(1100, 700);
  view.setDatabase(db_path_);
  view.setCheckedRuns({1, 2, 5});
  view.loadNow();
  // Smoothing is on by default: a faint raw graph and a smoothed graph per run.
  EXPECT_EQ(view.plot()->graphCount(), 6);
  EXPECT_EQ(view.plot()->legend->itemCount(), 3);
  view.plot()->xAxis->setRange(100, 300);  // zoom: redecimated to the new window on replot
  view.plot()->replot();
  EXPECT_LE(view.plot()->graph(1)->dataCount(), 3 * 2 + 4);
  // Nothing checked: the plot itself says why it is empty.
  view.setCheckedRuns({});
  view.loadNow();
  ASSERT_EQ(view.plot()->itemCount(), 1);
  auto* message = qobject_cast<QCPItemText*>(view.plot()->item(0));
  ASSERT_NE(message, nullptr);
  EXPECT_TRUE(message->text().contains("No runs checked")) << message->text().toStdString();
}

// A ladder with a learning-rate sweep (two sizes, three values, one seed): the Compare view's
// Sweep tab lists it and draws the first arm's loss against lr_mult, one line per size; the
// fixture ladder (no sweep) is not listed.
TEST_F(Workbench, CompareSweepTabDrawsALadderWithASweep) {
  const QString path = dir_->filePath("sweep.db");
  {
    auto db = storage::Database::open(path.toStdString());
    const int64_t ladder = db->upsertLadder("lrs", "[ladder]\nname = \"lrs\"\n", "lrshash");
    const std::vector<std::pair<const char*, double>> values = {
        {"0.5", 0.02}, {"1", 0.0}, {"2", 0.05}};
    for (const char* size : {"d2", "d4"})
      for (const auto& [value, excess] : values) {
        storage::RunRecord r;
        r.ladder_id = ladder;
        r.arm = "vanilla";
        r.size = size;
        r.seed = 1;
        r.name = std::string("vanilla-") + size + "-s1-lr_mult" + value;
        r.status = RunStatus::kFinished;
        r.flops = size == std::string("d2") ? 1e15 : 4e15;
        r.final_loss = (size == std::string("d2") ? 3.0 : 2.8) + excess;
        db->insertRun(r);
      }
  }
  CompareView view;
  view.resize(1100, 700);
  view.setDatabase(path);
  EXPECT_EQ(view.findChild<SweepPane*>(), nullptr) << "built when first opened";
  QSignalSpy reloaded(view.sweepPane(), &SweepPane::reloaded);  // builds it and reads
  ASSERT_TRUE(reloaded.wait(60000));
  EXPECT_EQ(view.sweepPane()->ladders(), std::vector<std::string>{"lrs"});
  // Per size: its line and its chosen point (lr_mult 1, inside the values: no ring).
  EXPECT_EQ(view.sweepPane()->plot()->graphCount(), 4);
  EXPECT_EQ(view.sweepPane()->plot()->xAxis->label(), QStringLiteral("lr_mult"));
}

TEST_F(Workbench, CompareReadsManyRunsInTheirOrderOnSeveralConnections) {
  // 150 runs: enough that the load splits them between reading threads (on a machine with more
  // than one core). The series must come back in the checked order, one per run with rows.
  const QString path = dir_->filePath("many_runs.db");
  std::vector<int64_t> ids;
  {
    auto db = storage::Database::open(path.toStdString());
    std::vector<storage::MetricRow> rows;
    for (int r = 0; r < 150; ++r) {
      const int64_t run = db->insertRun(storage::RunRecord{});
      ids.push_back(run);
      if (r % 50 == 7) continue;  // a run without rows is left out, wherever it falls
      for (int64_t step = 0; step < 200; ++step)
        rows.push_back({run, "train/loss", step, step, 1.0 * step, r + 1.0 / (1.0 + step), 0.0});
    }
    db->writeMetrics(rows);
  }
  CompareView view;
  view.resize(1100, 700);
  view.setDatabase(path);
  view.findChild<QComboBox*>()->setCurrentText("train/loss");
  view.setCheckedRuns(ids);
  view.loadNow();
  const int64_t first_id = ids.front();
  std::vector<int64_t> expected;  // the order the view lists its checked runs in
  for (int64_t id : view.checkedRuns())
    if ((id - first_id) % 50 != 7) expected.push_back(id);
  ASSERT_EQ(expected.size(), 147u);
  std::vector<int64_t> loaded;
  for (const auto& series : view.curves().series) loaded.push_back(series.run_id);
  EXPECT_EQ(loaded, expected);
  // Each series holds its own run's curve: run r's values lie in (r, r + 1].
  for (const auto& series : view.curves().series) {
    const double r = static_cast<double>(series.run_id - first_id);
    ASSERT_FALSE(series.y.empty());
    EXPECT_GT(series.y.front(), r);
    EXPECT_LE(series.y.front(), r + 1.0);
  }
}

TEST_F(Workbench, CompareReadsThePyramidThenEveryRowOfAZoomedRange) {
  const QString path = dir_->filePath("long_curve.db");
  int64_t run = 0;
  {
    auto db = storage::Database::open(path.toStdString());
    run = db->insertRun(storage::RunRecord{});
    std::vector<storage::MetricRow> rows;
    for (int64_t step = 0; step < 60000; ++step)
      rows.push_back({run, "train/loss", step, step * 64, step * 1e9,
                      3.0 + 1.0 / (1.0 + 0.01 * step) + 0.01 * (step % 7), 0.0});
    db->writeMetrics(rows);
  }
  CompareView view;
  view.resize(1100, 700);
  view.show();
  view.setDatabase(path);
  view.findChild<QComboBox*>()->setCurrentText("train/loss");
  view.setCheckedRuns({run});
  view.loadNow();
  ASSERT_EQ(view.curves().series.size(), 1u);
  const plots::CurveSeries& whole = view.curves().series[0];
  EXPECT_GT(whole.bucket_steps, 1);  // a pyramid level, not every row
  EXPECT_LT(whole.x.size(), 60000u / 4);
  // Zoom into 300 steps: once the view settles, those steps are read again, every row.
  view.plot()->xAxis->setRange(30000, 30300);
  view.plot()->replot();
  QTRY_VERIFY_WITH_TIMEOUT(view.curves().series[0].fine_hi >= 30300, 5000);
  const plots::CurveSeries& zoomed = view.curves().series[0];
  EXPECT_LE(zoomed.fine_lo, 30000);
  EXPECT_EQ(zoomed.fine_bucket_steps, 1);
  auto first = std::lower_bound(zoomed.steps.begin(), zoomed.steps.end(), 30000);
  for (int64_t step = 30000; step <= 30300; ++step, ++first) {
    ASSERT_NE(first, zoomed.steps.end());
    ASSERT_EQ(*first, step);
  }
  for (size_t i = 1; i < zoomed.steps.size(); ++i) ASSERT_LT(zoomed.steps[i - 1], zoomed.steps[i]);
}

TEST_F(Workbench, FrontierFitsAndExportsTables) {
  MainWindow window;
  ASSERT_TRUE(window.openDatabase(db_path_, true));
  window.frontier()->fitNow(/*blocking=*/true);
  ASSERT_TRUE(window.frontier()->result().has_value());
  const auto& r = *window.frontier()->result();
  ASSERT_EQ(r.arms.size(), 2u);
  EXPECT_NEAR(r.arms[0].gamma, 0.111, 1e-3);
  EXPECT_GT(window.frontier()->multiplierPlot()->graphCount(), 3);
  // The backtest beside the history: two panels, and its table and line under the scaling table;
  // a refit redraws the same two panels.
  EXPECT_FALSE(window.frontier()->backtest().points.empty());
  EXPECT_TRUE(window.frontier()->tableText().contains("held out 1 top rung per arm"))
      << window.frontier()->tableText().toStdString();
  window.frontier()->fitNow(/*blocking=*/true);
  EXPECT_EQ(window.frontier()->backtestPlot()->axisRectCount(), 2);
  EXPECT_GT(window.frontier()->backtestPlot()->graphCount(), 2);
  for (const char* ext : {"md", "csv", "tex", "json"}) {
    const QString path = dir_->filePath(QString("table.") + ext);
    window.exportTable(path);
    EXPECT_GT(QFileInfo(path).size(), 50) << ext;
  }
  window.showView(MainWindow::kFrontier);
  window.exportPlot(dir_->filePath("frontier.svg"));
  EXPECT_GT(QFileInfo(dir_->filePath("frontier.svg")).size(), 1000);
}

// Graphs of `plot` drawn as a filled band (a channel fill to another graph) that hold data.
int filledBands(QCustomPlot& plot) {
  int n = 0;
  for (int i = 0; i < plot.graphCount(); ++i)
    n += plot.graph(i)->channelFillGraph() != nullptr && !plot.graph(i)->data()->isEmpty();
  return n;
}

TEST_F(Workbench, FrontierOffersTheSourcesArmsAsBaselineAndDrawsNoBandWithoutAnInterval) {
  MainWindow window;
  ASSERT_TRUE(window.openDatabase(db_path_, true));
  FrontierView& view = *window.frontier();
  view.reloadSourcesNow();  // the list arrives in the background otherwise
  QComboBox& baseline = *view.baselineChoice();
  ASSERT_EQ(baseline.count(), 2);
  EXPECT_EQ(baseline.itemText(0), "growth");
  EXPECT_EQ(baseline.itemText(1), "vanilla");
  EXPECT_EQ(baseline.currentText(), "vanilla");  // the default baseline when the source has it

  // The fit runs on a worker thread: the event loop keeps turning until it arrives.
  QSignalSpy fitted(&view, &FrontierView::fitted);
  view.fitNow();
  EXPECT_FALSE(view.result().has_value()) << "fitNow() must not block the GUI thread";
  ASSERT_TRUE(fitted.wait(60000));
  ASSERT_TRUE(view.result().has_value());
  EXPECT_EQ(view.result()->baseline, "vanilla");
  EXPECT_GT(view.result()->bootstrap_used, 0);
  // The fixture's losses lie exactly on their laws: every resample refits the same curve, so the
  // bootstrap's band has no width, and a zero-width interval is no interval (none is drawn rather
  // than a band that claims certainty).
  EXPECT_EQ(filledBands(*view.frontierPlot()), 0) << "no band where there is no interval";
  EXPECT_EQ(filledBands(*view.multiplierPlot()), 0) << "no band where there is no interval";

  // Another baseline and C0: the other arm becomes the reference.
  baseline.setCurrentText("growth");
  view.c0Field()->setText("1e19");
  view.fitNow(/*blocking=*/true);
  ASSERT_TRUE(view.result().has_value());
  EXPECT_EQ(view.result()->baseline, "growth");
  EXPECT_EQ(view.result()->c_ref, 1e19);
  ASSERT_EQ(view.result()->multipliers.size(), 1u);
  EXPECT_EQ(view.result()->multipliers[0].arm, "vanilla");

  // The estimator: the paper's by default, the robust one on request; the table names it.
  QComboBox& estimator = *view.estimatorChoice();
  EXPECT_EQ(estimator.currentText(), "paper");
  EXPECT_EQ(view.result()->estimator, fitting::FrontierEstimator::Paper);
  estimator.setCurrentText("robust");
  view.fitNow(/*blocking=*/true);
  ASSERT_TRUE(view.result().has_value());
  EXPECT_EQ(view.result()->estimator, fitting::FrontierEstimator::Robust);
  EXPECT_EQ(view.result()->arms[1].method, "nls_huber_e_fixed");
}

// Waits (up to 20 s) for a view's background load to arrive.
template <typename View>
bool waitUntilLoaded(View& view) {
  for (int i = 0; i < 2000 && view.loading(); ++i) QTest::qWait(10);
  return !view.loading();
}

TEST_F(Workbench, LensAndSerialTaskViewsDrawTheFixture) {
  LensView lens;
  lens.setDatabase(db_path_);
  ASSERT_TRUE(waitUntilLoaded(lens));
  EXPECT_GE(lens.profilePlot()->graphCount(), 3);  // 3 evals + eps line
  EXPECT_GE(lens.depthPlot()->graphCount(), 1);
  SerialTaskView serial;
  serial.setDatabase(db_path_);
  ASSERT_TRUE(waitUntilLoaded(serial));
  EXPECT_EQ(serial.heatmap()->plottableCount(), 1);  // the colour map
  EXPECT_GT(serial.heatmap()->itemCount(), 7);       // cell labels + OOD outlines
  // The depth plot draws N = 323's population chance from core (1/9 from T = 4 on).
  bool chance_line = false;
  for (int i = 0; i < serial.depthPlot()->graphCount(); ++i) {
    QCPGraph* g = serial.depthPlot()->graph(i);
    if (!g->name().startsWith("chance")) continue;
    chance_line = true;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
      if (it->key >= 4) {
        EXPECT_NEAR(it->value, 1.0 / 9, 1e-12) << it->key;
      }
  }
  EXPECT_TRUE(chance_line);
}

// A squaring run with the trainer's task names: each cell's label carries the population chance
// and, E1 being a fixed-modulus tier, the composition ceiling computed by core.
TEST(SerialTaskView, CellsShowPopulationChanceAndCompositionCeiling) {
  QTemporaryDir dir;
  const std::string path = dir.filePath("sq.db").toStdString();
  {
    auto db = storage::Database::open(path);
    storage::RunRecord r;
    r.name = "e1";
    r.status = RunStatus::kFinished;
    r.config_json = R"({"task":"squaring","squaring":{"tier":"E1","data_seed":45}})";
    const int64_t id = db->insertRun(r);
    db->writeEvals({{id, 10, "squaring/depth", 9, 1, 38, 38},   // the reserved cohort: ceiling 0
                    {id, 10, "squaring/ood_t", 9, 6, 50, 100},  // OOD T = 6: chance 1/9, 97%
                    {id, 10, "squaring/ood_t@r=3", 9, 6, 0, 100}});  // the sweep: not in the map
  }
  SerialTaskView serial;
  serial.setDatabase(QString::fromStdString(path));
  ASSERT_TRUE(waitUntilLoaded(serial));
  QStringList labels;
  for (int i = 0; i < serial.heatmap()->itemCount(); ++i)
    if (auto* text = qobject_cast<QCPItemText*>(serial.heatmap()->item(i))) labels << text->text();
  EXPECT_TRUE(labels.contains("100%\n(1.4% | 0%)")) << labels.join(" ; ").toStdString();
  EXPECT_TRUE(labels.contains("50%\n(11.1% | 97%)")) << labels.join(" ; ").toStdString();
}

TEST_F(Workbench, DesignerValidatesLiveWithTheCliMessages) {
  LadderDesignerView designer;
  // A three-run ladder (resources/ladders/quick.toml as first committed; inlined so that edits
  // to the shipped example do not change this test).
  designer.setText(
      "[ladder]\nname = \"quick\"\nseeds = [1]\n"
      "[model]\nseq_len = 64\nmlp = \"gelu\"\n"
      "[data]\nkind = \"builtin\"\n"
      "[train]\nbatch_size = 16\nlr = 3e-3\neval_every = 100\n"
      "[sizes]\ndepths = [2, 3, 4]\nwidth_per_depth = 32\nhead_dim = 16\n"
      "[budget]\nrule = \"tokens_per_param\"\ntokens_per_param = 10\n"
      "[arms.vanilla]\n"
      "[resources]\nbackend = \"local\"\ndevices = \"cpu\"\nslots = 2\n");
  EXPECT_EQ(designer.validationMessage(), "");
  EXPECT_EQ(designer.plannedRuns(), 3);
  designer.setText("[ladder]\nname = \"x\"\nseeds = [1]\n[budget]\nrule = \"bogus\"\n");
  EXPECT_FALSE(designer.validationMessage().isEmpty());
  EXPECT_TRUE(designer.validationMessage().contains("designer"))
      << designer.validationMessage().toStdString();
}

TEST_F(Workbench, WindowRemembersItsSplittersAndRunTableColumns) {
  QSettings().remove("layout");
  QList<int> saved;
  int saved_width = 0;
  {
    MainWindow window;
    window.resize(1200, 800);
    window.show();
    auto* splitter = window.frontier()->findChild<QSplitter*>();
    ASSERT_NE(splitter, nullptr);
    splitter->setSizes({300, 500});
    window.runs()->table()->setColumnWidth(RunTableModel::kArm, 222);
    saved = splitter->sizes();
    saved_width = window.runs()->table()->columnWidth(RunTableModel::kArm);
    ASSERT_TRUE(window.close());  // no database, nothing running: closes and saves
  }
  MainWindow again;
  again.resize(1200, 800);
  again.show();
  EXPECT_EQ(again.frontier()->findChild<QSplitter*>()->sizes(), saved);
  EXPECT_EQ(again.runs()->table()->columnWidth(RunTableModel::kArm), saved_width);
  QSettings().remove("layout");
}

TEST_F(Workbench, ClosingOverRunsLeftByAStoppedSchedulerAsksNothing) {
  // The fixture's run 9 is marked running, but no scheduler holds the database: nothing runs,
  // so closing the window has nothing to ask.
  MainWindow window;
  window.show();
  ASSERT_TRUE(window.openDatabase(db_path_, true));
  for (int i = 0; i < 100 && window.runs()->model()->rowCount() < 9; ++i) QTest::qWait(20);
  ASSERT_EQ(window.runs()->runningCount(), 1);
  EXPECT_EQ(window.runs()->otherSchedulerPid(), 0);
  bool asked = false;
  QTimer::singleShot(3000, &window, [&asked] {
    if (QWidget* dialog = QApplication::activeModalWidget()) {
      asked = true;
      dialog->close();
    }
  });
  EXPECT_TRUE(window.close());
  EXPECT_FALSE(asked);
  QSettings().remove("layout");  // leave no layout behind for the other tests' windows
}

// The quick ladder of DesignerValidatesLiveWithTheCliMessages.
const char* kQuickLadder =
    "[ladder]\nname = \"quick\"\nseeds = [1]\n"
    "[model]\nseq_len = 64\nmlp = \"gelu\"\n"
    "[data]\nkind = \"builtin\"\n"
    "[train]\nbatch_size = 16\nlr = 3e-3\neval_every = 100\n"
    "[sizes]\ndepths = [2, 3, 4]\nwidth_per_depth = 32\nhead_dim = 16\n"
    "[budget]\nrule = \"tokens_per_param\"\ntokens_per_param = 10\n"
    "[arms.vanilla]\n"
    "[resources]\nbackend = \"local\"\ndevices = \"cpu\"\nslots = 2\n";

// Types into a form field as a user would (the form reacts to a finished edit).
void typeInto(QLineEdit* edit, const QString& text) {
  ASSERT_NE(edit, nullptr);
  edit->setText(text);
  edit->setModified(true);
  emit edit->editingFinished();
}

// The run options in the form come from the schema: every option has its widget, and a value
// typed there lands in the text with the option's TOML type.
TEST_F(Workbench, DesignerFormHasAFieldForEveryRunOption) {
  LadderDesignerView designer;
  designer.setText(kQuickLadder);
  LadderForm& form = *designer.form();
  for (const options::OptionSpec& spec : options::runOptionSchema()) {
    if (spec.section == options::Section::root) continue;
    const std::string table(options::sectionName(spec.section)), key(spec.key);
    EXPECT_TRUE(form.field(table, key) || form.choice(table, key)) << spec.qualifiedKey();
  }
  form.choice("model", "qk_norm")->setCurrentText("true");
  emit form.choice("model", "qk_norm")->activated(1);
  typeInto(form.field("train", "embed_lr"), "0.3");
  EXPECT_NE(designer.text().toStdString().find("qk_norm = true"), std::string::npos)
      << designer.text().toStdString();
  EXPECT_NE(designer.text().toStdString().find("embed_lr = 0.3"), std::string::npos)
      << designer.text().toStdString();
}

TEST_F(Workbench, DesignerFormShowsTheWholeSpecAndRewritesTheText) {
  LadderDesignerView designer;
  designer.setText(kQuickLadder);
  LadderForm& form = *designer.form();
  ASSERT_TRUE(designer.formEnabled());
  EXPECT_EQ(form.field("ladder", "name")->text(), "quick");
  EXPECT_EQ(form.field("ladder", "seeds")->text(), "1");
  EXPECT_EQ(form.field("sizes", "depths")->text(), "2, 3, 4");
  EXPECT_EQ(form.field("train", "batch_size")->text(), "16");
  EXPECT_EQ(form.field("resources", "slots")->text(), "2");
  EXPECT_EQ(form.choice("budget", "rule")->currentText(), "tokens_per_param");
  EXPECT_EQ(form.choice("data", "kind")->currentText(), "builtin");
  EXPECT_EQ(form.field("train", "checkpoint_every")->text(), "") << "absent: the default";
  EXPECT_TRUE(form.field("budget", "tokens_per_param")->isEnabled());
  EXPECT_FALSE(form.field("budget", "flops")->isEnabled()) << "only the rule's own field";
  ASSERT_EQ(form.armsTable()->rowCount(), 1);
  EXPECT_EQ(form.armsTable()->item(0, 0)->text(), "vanilla");
  EXPECT_EQ(form.sizesMode()->currentIndex(), 0) << "a depth ladder";

  // Training and resources fields write into the text; seeds change the plan.
  typeInto(form.field("train", "lr"), "0.001");
  typeInto(form.field("resources", "retries"), "5");
  typeInto(form.field("ladder", "seeds"), "1, 2");
  EXPECT_EQ(designer.validationMessage(), "");
  EXPECT_TRUE(designer.text().contains("lr = 0.001")) << designer.text().toStdString();
  EXPECT_TRUE(designer.text().contains("retries = 5")) << designer.text().toStdString();
  EXPECT_EQ(designer.plannedRuns(), 6);

  // Budget rule flops with one budget per size.
  form.choice("budget", "rule")->setCurrentText("flops");
  EXPECT_TRUE(form.field("budget", "flops")->isEnabled());
  typeInto(form.field("budget", "flops"), "1e12, 2e12, 4e12");
  EXPECT_EQ(designer.validationMessage(), "") << designer.text().toStdString();
  // Round trip: the rewritten text, read back, fills the form the same way.
  EXPECT_EQ(form.choice("budget", "rule")->currentText(), "flops") << designer.text().toStdString();
  EXPECT_EQ(form.field("budget", "flops")->text(), "1e12, 2e12, 4e12");

  // A second arm with a train override doubles the plan.
  QTableWidget& arms = *form.armsTable();
  arms.insertRow(1);
  arms.setItem(1, 2, new QTableWidgetItem("train = { lr = 0.002 }"));
  arms.setItem(1, 1, new QTableWidgetItem(""));
  arms.setItem(1, 0, new QTableWidgetItem("slow"));  // the last edit triggers the rewrite
  EXPECT_EQ(designer.validationMessage(), "") << designer.text().toStdString();
  EXPECT_EQ(designer.plannedRuns(), 12);
  EXPECT_TRUE(designer.text().contains("[arms.slow")) << designer.text().toStdString();

  // Explicit sizes instead of the depth ladder.
  form.sizesMode()->setCurrentIndex(1);
  emit form.sizesMode()->activated(1);
  QTableWidget& sizes = *form.sizesTable();
  sizes.insertRow(0);
  sizes.setItem(0, 1, new QTableWidgetItem("d_model = 32, n_layer = 1, n_head = 2"));
  sizes.setItem(0, 0, new QTableWidgetItem("tiny"));
  typeInto(form.field("budget", "flops"), "1e12");
  EXPECT_EQ(designer.validationMessage(), "") << designer.text().toStdString();
  EXPECT_FALSE(designer.text().contains("depths")) << designer.text().toStdString();
  EXPECT_EQ(designer.plannedRuns(), 4);  // 2 arms x 1 size x 2 seeds
}

TEST_F(Workbench, DesignerFormEditsKeepTheTextsCommentsAndOrder) {
  LadderDesignerView designer;
  QString commented = QString("# my notes on this ladder\n") + kQuickLadder;
  designer.setText(commented.replace("lr = 3e-3", "lr = 3e-3  # tuned on d2"));
  LadderForm& form = *designer.form();
  typeInto(form.field("train", "lr"), "0.002");       // changed in place
  typeInto(form.field("train", "eval_every"), "");    // removed
  typeInto(form.field("resources", "retries"), "4");  // added to [resources]
  typeInto(form.field("train", "checkpoint_every"), "50");
  EXPECT_EQ(designer.validationMessage(), "");
  const QString text = designer.text();
  EXPECT_TRUE(text.startsWith("# my notes on this ladder\n")) << text.toStdString();
  EXPECT_TRUE(text.contains("lr = 0.002  # tuned on d2")) << text.toStdString();
  EXPECT_FALSE(text.contains("eval_every")) << text.toStdString();
  EXPECT_TRUE(text.contains("slots = 2\nretries = 4\n")) << text.toStdString();
  EXPECT_TRUE(text.contains("lr = 0.002  # tuned on d2\ncheckpoint_every = 50\n"))
      << text.toStdString();
  EXPECT_TRUE(text.indexOf("[model]") < text.indexOf("[train]")) << "sections keep their order";
}

TEST_F(Workbench, DesignerRunsWithCtrlReturnOnlyAValidLadder) {
  LadderDesignerView designer;
  designer.setDatabase(db_path_);
  designer.setText(kQuickLadder);
  QShortcut* run_key = nullptr;
  for (QShortcut* s : designer.findChildren<QShortcut*>())
    if (s->key() == QKeySequence(Qt::CTRL | Qt::Key_Return)) run_key = s;
  ASSERT_NE(run_key, nullptr);
  QSignalSpy requested(&designer, &LadderDesignerView::runRequested);
  emit run_key->activated();
  ASSERT_EQ(requested.count(), 1);
  EXPECT_EQ(requested.at(0).at(0).toString(), designer.text());
  designer.setText("[ladder]\nname = \"x\"\n");  // not a valid ladder: Run does nothing
  emit run_key->activated();
  EXPECT_EQ(requested.count(), 1);
}

TEST_F(Workbench, DesignerFormStaysOffABrokenTextAndNamesBadFields) {
  LadderDesignerView designer;
  designer.setText(kQuickLadder);
  // A field the spec cannot take: the text is left alone and the message names the field.
  const QString before = designer.text();
  typeInto(designer.form()->field("train", "batch_size"), "sixteen");
  EXPECT_EQ(designer.text(), before);
  // A text that does not parse: the CLI's message, the form disabled, the text untouched.
  const QString broken = "[ladder\nname = \"x\"\n";
  designer.setText(broken);
  EXPECT_FALSE(designer.validationMessage().isEmpty());
  EXPECT_TRUE(designer.validationMessage().contains("designer"))
      << designer.validationMessage().toStdString();
  EXPECT_FALSE(designer.formEnabled());
  EXPECT_EQ(designer.text(), broken);
  designer.setText(kQuickLadder);
  EXPECT_TRUE(designer.formEnabled());
}

}  // namespace
}  // namespace deepladder::ui
