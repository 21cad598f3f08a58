// Compare's grouping and the Scatter tab driven through their controls, offscreen, on the grouped
// fixture (grouped_fixture.h): checking options in the group-by list collapses each group's seeds
// into one mean curve with its band (values checked against the runs' own curves by a plain loop),
// the band switches between min-max and +-1 sd, and the scatter of final loss against parameters
// coloured by arm draws one point per run and each arm's fitted law through them; a saved view
// comes back. Saves screenshots of both to ${build}/tests/ui/screenshots for a human to look at.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QApplication>
#include <QComboBox>
#include <QListWidget>
#include <QSlider>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "storage/database.h"
#include "tests/ui/grouped_fixture.h"
#include "ui/plots/offscreen_app.h"
#include "ui/workbench/compare_view.h"
#include "ui/workbench/main_window.h"
#include "ui/workbench/scatter_pane.h"

namespace deepladder::ui {
namespace {

class CompareGrouping : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    plots::ensureGuiApplication();
    QCoreApplication::setOrganizationName("deepladder-test");
    dir_ = new QTemporaryDir;
    db_path_ = dir_->filePath("grid.db");
    ids_ = testing::buildGroupedFixture(db_path_.toStdString());
  }
  static void TearDownTestSuite() { delete dir_; }
  // The runs of one size ("d8"): 2 arms x 3 lr_mult x 3 seeds.
  static std::vector<int64_t> middleSize() {
    std::vector<int64_t> out;
    for (size_t i = 0; i < ids_.size(); ++i)
      if ((i / 3) % 3 == 1) out.push_back(ids_[i]);
    return out;
  }
  static void waitFor(const std::function<bool()>& done) {
    for (int i = 0; i < 400 && !done(); ++i) QTest::qWait(10);
  }
  static QTemporaryDir* dir_;
  static QString db_path_;
  static std::vector<int64_t> ids_;
};
QTemporaryDir* CompareGrouping::dir_ = nullptr;
QString CompareGrouping::db_path_;
std::vector<int64_t> CompareGrouping::ids_;

QListWidgetItem* groupItem(CompareView& view, const QString& option) {
  auto* list = view.findChild<QListWidget*>(QStringLiteral("groupBy"));
  if (!list) return nullptr;
  for (int i = 0; i < list->count(); ++i)
    if (list->item(i)->text() == option) return list->item(i);
  return nullptr;
}

// y of the run's curve at x, linear between its points (independent of core/run_grouping.cpp).
double runValueAt(const plots::CurveSeries& s, double x) {
  for (size_t i = 1; i < s.x.size(); ++i)
    if (s.x[i] >= x)
      return s.y[i - 1] + (x - s.x[i - 1]) / (s.x[i] - s.x[i - 1]) * (s.y[i] - s.y[i - 1]);
  return s.y.back();
}

TEST_F(CompareGrouping, GroupByArmAndLrMultCollapsesSeedsIntoMeanAndBand) {
  CompareView view;
  view.resize(1200, 700);
  view.setDatabase(db_path_);
  waitFor([&] { return groupItem(view, "train.lr_mult") != nullptr; });
  const auto offered = view.groupableOptions();
  for (const char* name : {"arm", "size", "ladder", "seed", "train.lr_mult"})
    EXPECT_NE(std::find(offered.begin(), offered.end(), name), offered.end()) << name;
  view.findChild<QSlider*>()->setValue(0);  // raw curves: the mean is of the logged values
  view.findChild<QComboBox*>()->setCurrentText("val/loss");
  view.setCheckedRuns(middleSize());
  view.loadNow(/*every_row=*/true);
  ASSERT_EQ(view.shownCurves().series.size(), 18u);  // ungrouped: one curve per run

  // Check "arm" and "train.lr_mult" in the list, as a user would.
  groupItem(view, "arm")->setCheckState(Qt::Checked);
  groupItem(view, "train.lr_mult")->setCheckState(Qt::Checked);
  EXPECT_EQ(view.groupBy(), (std::vector<std::string>{"arm", "train.lr_mult"}));
  view.loadNow(/*every_row=*/true);  // the runs' option values come with the curves
  const auto& groups = view.shownCurves().series;
  ASSERT_EQ(groups.size(), 6u);  // 2 arms x 3 values
  EXPECT_EQ(groups[0].label, "arm=growth, lr_mult=0.5 (3 runs)");
  EXPECT_EQ(groups[5].label, "arm=vanilla, lr_mult=2 (3 runs)");
  // Each group: its band's two graphs, then its mean, named as the legend names it.
  ASSERT_EQ(view.plot()->graphCount(), 6 * 3);
  for (int g = 0; g < 6; ++g) {
    EXPECT_EQ(view.plot()->graph(3 * g + 2)->name(), groups[g].label);
    EXPECT_TRUE(view.plot()->graph(3 * g)->name().isEmpty());
    EXPECT_EQ(view.plot()->graph(3 * g + 1)->channelFillGraph(), view.plot()->graph(3 * g));
  }
  // The mean and the min-max band against the runs' own curves, at every grid point.
  const auto& runs = view.curves().series;
  for (const auto& group : groups) {
    EXPECT_EQ(group.runs, 3);
    std::vector<const plots::CurveSeries*> members;
    for (const auto& r : runs)
      if (r.label.contains(group.label.contains("growth") ? "growth" : "vanilla") &&
          r.label.contains("lr_mult" + group.label.section("lr_mult=", 1).section(' ', 0, 0) + "-"))
        members.push_back(&r);
    ASSERT_EQ(members.size(), 3u) << group.label.toStdString();
    for (size_t i = 0; i < group.x.size(); i += 7) {
      double sum = 0, lo = INFINITY, hi = -INFINITY;
      for (const auto* m : members) {
        const double v = runValueAt(*m, group.x[i]);
        sum += v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      EXPECT_NEAR(group.y[i], sum / 3, 1e-9);
      EXPECT_NEAR(group.band_lo[i], lo, 1e-9);
      EXPECT_NEAR(group.band_hi[i], hi, 1e-9);
    }
  }
  // The +-1 sd band, chosen in its combo box.
  view.findChild<QComboBox*>(QStringLiteral("seedBand"))->setCurrentIndex(1);
  const auto& sd_groups = view.shownCurves().series;
  ASSERT_EQ(sd_groups.size(), 6u);
  const auto& last = sd_groups.back();
  const size_t end = last.x.size() - 1;  // the final step: the runs' final losses
  std::vector<double> finals;
  for (int seed = 1; seed <= 3; ++seed)
    finals.push_back(testing::gridFinalLoss("vanilla", 4e6, 2.0, seed));
  const double mean = (finals[0] + finals[1] + finals[2]) / 3;
  double ss = 0;
  for (double f : finals) ss += (f - mean) * (f - mean);
  EXPECT_NEAR(last.y[end], mean, 1e-9);
  EXPECT_NEAR(last.band_hi[end] - last.y[end], std::sqrt(ss / 2), 1e-9);

  // Unchecking both goes back to one curve per run.
  view.setGroupBy({});
  EXPECT_EQ(view.shownCurves().series.size(), 18u);
}

TEST_F(CompareGrouping, ScatterOfFinalLossAgainstParamsColouredByArmWithFittedLaws) {
  CompareView view;
  view.resize(1200, 700);
  view.setDatabase(db_path_);
  ScatterPane* scatter = view.scatterPane();
  scatter->loadNow();
  const auto xs = scatter->xChoices();
  EXPECT_NE(std::find(xs.begin(), xs.end(), "train.lr_mult"), xs.end());
  EXPECT_NE(std::find(xs.begin(), xs.end(), "tokens_per_param"), xs.end());
  // Drive the controls: y = final val/loss, x = params, grouped by arm, log x.
  scatter->findChild<QComboBox*>(QStringLiteral("scatterX"))->setCurrentText("params");
  scatter->findChild<QComboBox*>(QStringLiteral("scatterGroup"))->setCurrentText("arm");
  scatter->loadNow();
  const plots::ScatterPlotInput& shown = scatter->shown();
  EXPECT_EQ(shown.groups, (std::vector<std::string>{"growth", "vanilla"}));
  ASSERT_EQ(shown.points.size(), 54u);
  ASSERT_EQ(shown.laws.size(), 2u);
  QCustomPlot* plot = scatter->plot();
  ASSERT_EQ(plot->graphCount(), 4);  // per arm: its points, its law
  EXPECT_EQ(plot->graph(0)->name(), "arm=growth");
  EXPECT_EQ(plot->graph(0)->dataCount(), 27);
  EXPECT_EQ(plot->graph(0)->lineStyle(), QCPGraph::lsNone);
  for (int g = 0; g < 2; ++g) {
    const auto& law = shown.laws[static_cast<size_t>(g)];
    ASSERT_TRUE(law.fitted()) << law.no_fit;
    EXPECT_LT(law.b, 0) << "loss falls with parameters";
    QCPGraph* line = plot->graph(2 * g + 1);
    EXPECT_TRUE(line->name().startsWith(QString::fromStdString(law.group + " fit: y = ")));
    ASSERT_GT(line->dataCount(), 10);
    for (auto it = line->data()->constBegin(); it != line->data()->constEnd(); ++it)
      EXPECT_NEAR(it->value, law.predict(it->key), 1e-12);
    EXPECT_NEAR(line->data()->constBegin()->key, 1e6, 1e-6);  // over the arm's points' range
    EXPECT_NEAR((line->data()->constEnd() - 1)->key, 16e6, 1e-3);
  }
  EXPECT_EQ(plot->xAxis->scaleType(), QCPAxis::stLogarithmic);

  // Saved as a named view, and opened again after the controls changed.
  scatter->saveViewNow("loss-vs-params");
  {
    auto db = storage::Database::open(db_path_.toStdString(), /*read_only=*/true);
    const auto view_row = db->savedView("loss-vs-params");
    ASSERT_TRUE(view_row.has_value());
    EXPECT_EQ(view_row->kind, "scatter");
    EXPECT_NE(view_row->spec_json.find("\"x\":\"params\""), std::string::npos);
  }
  scatter->findChild<QComboBox*>(QStringLiteral("scatterX"))->setCurrentText("train.lr_mult");
  EXPECT_EQ(scatter->spec().x, "train.lr_mult");
  ASSERT_TRUE(scatter->openView("loss-vs-params"));
  EXPECT_EQ(scatter->spec().x, "params");
  EXPECT_EQ(scatter->spec().group, "arm");
}

// Screenshots for docs/workbench.md: the main window's Compare grouped by arm x lr_mult with the
// seeds collapsed (train/loss, min-max band), and its Scatter tab (final loss vs parameters).
TEST_F(CompareGrouping, SavesScreenshotsOfGroupedCompareAndScatter) {
  const std::string shots = std::string(DEEPLADDER_BINARY_DIR) + "/tests/ui/screenshots";
  std::filesystem::create_directories(shots);
  MainWindow window;
  window.resize(1400, 860);
  window.show();
  ASSERT_TRUE(window.openDatabase(db_path_, /*quiet=*/true));
  window.showView(MainWindow::kCompare);
  CompareView* view = window.compare();
  waitFor([&] { return groupItem(*view, "train.lr_mult") != nullptr; });
  view->findChild<QComboBox*>()->setCurrentText("train/loss");
  view->setCheckedRuns(middleSize());
  view->setGroupBy({"arm", "train.lr_mult"});
  view->loadNow();
  view->plot()->yAxis->setRange(3.0, 4.2);
  view->plot()->replot();
  QTest::qWait(200);
  ASSERT_TRUE(window.grab().save(QString::fromStdString(shots + "/compare_grouped.png")));
  auto* tabs = view->findChild<QTabWidget*>();
  ASSERT_NE(tabs, nullptr);
  tabs->setCurrentIndex(2);
  ScatterPane* scatter = view->scatterPane();
  scatter->findChild<QComboBox*>(QStringLiteral("scatterX"))->setCurrentText("params");
  scatter->findChild<QComboBox*>(QStringLiteral("scatterGroup"))->setCurrentText("arm");
  scatter->loadNow();
  QTest::qWait(200);
  ASSERT_TRUE(window.grab().save(QString::fromStdString(shots + "/compare_scatter.png")));
  EXPECT_EQ(scatter->plot()->graphCount(), 4);
  window.showView(MainWindow::kRuns);
}

}  // namespace
}  // namespace deepladder::ui
