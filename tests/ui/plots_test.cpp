// Plot rendering off screen: decimation keeps extremes and bounds the point count, EMA, d_lens
// on hand-built profiles, every plot kind written as PNG, SVG and PDF, non-empty, and the
// projection history drawn from hand-built snapshots; the backtest's two panels, drawn again on
// the same plot.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QFileInfo>
#include <QImage>
#include <QPalette>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>
#include <vector>

#include "core/errors.h"
#include "fitting/backtest.h"
#include "fitting/frontier_fit.h"
#include "fitting/sweep_envelope.h"
#include "ui/plots/backtest_plot.h"
#include "ui/plots/curves_plot.h"
#include "ui/plots/decimation.h"
#include "ui/plots/depth_plot.h"
#include "ui/plots/frontier_plot.h"
#include "ui/plots/history_plot.h"
#include "ui/plots/lens_plot.h"
#include "ui/plots/multiplier_plot.h"
#include "ui/plots/offscreen_app.h"
#include "ui/plots/plot_export.h"
#include "ui/plots/plot_file.h"
#include "ui/plots/plot_style.h"
#include "ui/plots/sweep_plot.h"

namespace deepladder::plots {
namespace {

std::string outDir() {
  const std::string dir = std::string(DEEPLADDER_BINARY_DIR) + "/tests/ui/plots";
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(Decimation, KeepsSpikesAndBoundsPointCount) {
  std::vector<double> x(1'000'000), y(1'000'000);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<double>(i);
    y[i] = std::sin(i * 0.001);
  }
  y[777'777] = 50.0;  // a spike must survive
  y[123'456] = -50.0;
  const auto d = decimateMinMax(x, y, 0, 999'999, 500, false);
  EXPECT_LE(d.x.size(), 2 * 500 + 2);
  EXPECT_EQ(*std::max_element(d.y.begin(), d.y.end()), 50.0);
  EXPECT_EQ(*std::min_element(d.y.begin(), d.y.end()), -50.0);
  EXPECT_TRUE(std::is_sorted(d.x.begin(), d.x.end()));
}

TEST(Decimation, ColumnsFlatterThanAPixelKeepOnePointSpikesStay) {
  // A slow ramp: within each of 100 columns y moves by 0.01, below a pixel of 0.05.
  std::vector<double> x(10'000), y(10'000);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<double>(i);
    y[i] = i * 1e-4;
  }
  y[5'050] = 9.0;  // one spike: its column keeps min and max
  const auto both = decimateMinMax(x, y, 0, 9'999, 100, false);
  const auto merged = decimateMinMax(x, y, 0, 9'999, 100, false, /*y_pixel=*/0.05);
  EXPECT_GE(both.x.size(), 200u);
  EXPECT_LE(merged.x.size(), 100u + 3);
  EXPECT_EQ(*std::max_element(merged.y.begin(), merged.y.end()), 9.0);
  // On a log axis the pixel is in log10(y): a factor 2 inside a column is many pixels.
  std::vector<double> g(10'000);
  for (size_t i = 0; i < g.size(); ++i) g[i] = std::pow(2.0, (i % 100) / 99.0);
  const auto log_merged = decimateMinMax(x, g, 0, 9'999, 100, false, 0.01, /*log_y=*/true);
  EXPECT_GE(log_merged.x.size(), 200u);
}

TEST(Decimation, ZoomedViewKeepsNeighboursOutside) {
  std::vector<double> x = {1, 2, 3, 4, 5, 6}, y = {1, 2, 3, 4, 5, 6};
  const auto d = decimateMinMax(x, y, 2.5, 4.5, 100, false);
  ASSERT_GE(d.x.size(), 4);
  EXPECT_EQ(d.x.front(), 2);
  EXPECT_EQ(d.x.back(), 5);
}

TEST(Decimation, EmaIsBiasCorrected) {
  const auto s = emaSmooth({2, 2, 2, 2}, 0.9);
  for (double v : s) EXPECT_NEAR(v, 2.0, 1e-12);
  EXPECT_EQ(emaSmooth({1, 5}, 0.0), (std::vector<double>{1, 5}));
}

fitting::ResultsTable syntheticResults() {
  fitting::ResultsTable t;
  t.source = "synthetic (design doc exponents 0.111 vs 0.117, E 1.8, +-0.4% wiggle)";
  // A fixed +-0.4% wiggle stands in for seed noise, so the bootstrap bands have some width.
  const double wiggle[] = {0.004, -0.004, 0.0, 0.004, -0.004};
  for (auto [arm, A, g] : {std::tuple{"vanilla", 1.2, 0.111}, {"growth", 1.15, 0.117}}) {
    int i = 0;
    for (double c : {1e17, 1e18, 1e19, 1e20, 1e21})
      t.points.push_back({arm, c, (1.8 + A * std::pow(c / 1e18, -g)) * (1 + wiggle[i++])});
  }
  return t;
}

// The synthetic table and its frontier fit (20 bootstrap resamples, for bands).
std::pair<fitting::ResultsTable, fitting::FrontierResult> fittedSyntheticResults() {
  auto options = fitting::defaultFrontierOptions();
  options.bootstrap = 20;
  const auto table = syntheticResults();
  return {table, fitting::fitFrontier(table, options)};
}

// The legend text of the graph whose name contains `part`, or "" when none does.
QString legendLineWith(QCustomPlot& plot, const QString& part) {
  for (int i = 0; i < plot.graphCount(); ++i)
    if (plot.graph(i)->name().contains(part)) return plot.graph(i)->name();
  return {};
}

void expectWritten(QCustomPlot& plot, const std::string& stem) {
  for (const char* ext : {"png", "svg", "pdf"}) {
    const QString path = QString::fromStdString(outDir() + "/" + stem + "." + ext);
    savePlot(plot, path);
    EXPECT_GT(QFileInfo(path).size(), 1000) << path.toStdString();
  }
  const QImage png(QString::fromStdString(outDir() + "/" + stem + ".png"));
  EXPECT_EQ(png.width(), 960 * 2);
}

// `deepladder plot`'s path: a drawing of a plot's data in, a file out.
TEST(Plots, WritePlotFileDrawsAnyPlotsDataIntoAFile) {
  const std::string stem = outDir() + "/data_to_file";
  const LensPlotInput lens{"run", {{100, {0.5, 3, 6, 4, 1.5, 0}}}, 2.0, "Lens"};
  writePlotFile([&](QCustomPlot& plot) { drawLens(plot, lens); },
                QString::fromStdString(stem + ".png"), 640, 400);
  EXPECT_EQ(QImage(QString::fromStdString(stem + ".png")).width(), 640 * 2);
  DepthPlotInput depth{{}, "Depth"};
  for (const auto& [arm, layers, loss] : std::vector<std::tuple<std::string, double, double>>{
           {"vanilla", 2, 3.1}, {"vanilla", 4, 2.9}, {"looped", 4, 2.8}}) {
    RunPoint p;
    p.arm = arm;
    p.depth = layers;
    p.val_loss = loss;
    depth.points.push_back(p);
  }
  const PlotDrawing draw_depth = [&](QCustomPlot& plot) { drawDepthSweep(plot, depth); };
  writePlotFile(draw_depth, QString::fromStdString(stem + ".svg"));
  EXPECT_GT(QFileInfo(QString::fromStdString(stem + ".svg")).size(), 1000);
  EXPECT_THROW(writePlotFile(draw_depth, QString::fromStdString(stem + ".bmp")), UserError);
}

// The depth plot's content: per arm a scatter of every run and a line through the mean over seeds
// at each depth, in the arm's colour, both in the plot's data and in the pixels of its PNG.
TEST(Plots, DepthPlotDrawsEveryRunAndTheMeanPerArmInItsColour) {
  ensureGuiApplication();
  DepthPlotInput input{{}, "Depth"};
  // vanilla: two seeds at depths 4 and 8, one at 16; looped: one seed at each of 4, 8, 16.
  const std::vector<std::tuple<std::string, double, double>> runs = {
      {"vanilla", 4, 3.0},  {"vanilla", 4, 3.2}, {"vanilla", 8, 2.8}, {"vanilla", 8, 2.6},
      {"vanilla", 16, 2.5}, {"looped", 4, 2.9},  {"looped", 8, 2.7},  {"looped", 16, 2.3}};
  for (const auto& [arm, layers, loss] : runs) {
    RunPoint p;
    p.arm = arm;
    p.depth = layers;
    p.val_loss = loss;
    input.points.push_back(p);
  }
  QCustomPlot plot;
  plot.resize(960, 600);
  drawDepthSweep(plot, input);
  ASSERT_EQ(plot.graphCount(), 4);  // per arm, in order of appearance: runs, then mean
  const std::map<double, double> vanilla_mean = {{4, 3.1}, {8, 2.7}, {16, 2.5}};
  const std::map<double, double> looped_mean = {{4, 2.9}, {8, 2.7}, {16, 2.3}};
  auto data = [](QCPGraph* g) {
    std::vector<std::pair<double, double>> out;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
      out.emplace_back(it->key, it->value);
    return out;
  };
  auto near = [](const std::vector<std::pair<double, double>>& got,
                 const std::vector<std::pair<double, double>>& want) {
    if (got.size() != want.size()) return false;
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i].first != want[i].first || std::abs(got[i].second - want[i].second) > 1e-12)
        return false;
    return true;
  };
  const std::vector<std::pair<double, double>> vanilla_runs = {
      {4, 3.0}, {4, 3.2}, {8, 2.8}, {8, 2.6}, {16, 2.5}};
  EXPECT_TRUE(near(data(plot.graph(0)), vanilla_runs));
  EXPECT_EQ(plot.graph(0)->lineStyle(), QCPGraph::lsNone);
  EXPECT_TRUE(near(data(plot.graph(1)), {vanilla_mean.begin(), vanilla_mean.end()}));
  EXPECT_EQ(plot.graph(1)->name(), "vanilla");
  EXPECT_TRUE(near(data(plot.graph(2)), {{4, 2.9}, {8, 2.7}, {16, 2.3}}));
  EXPECT_TRUE(near(data(plot.graph(3)), {looped_mean.begin(), looped_mean.end()}));
  EXPECT_EQ(plot.graph(3)->name(), "looped");
  EXPECT_EQ(plot.graph(1)->pen().color(), seriesColor(0));
  EXPECT_EQ(plot.graph(3)->pen().color(), seriesColor(1));
  // Every point inside the axes' ranges (depth on a log2 axis).
  for (const auto& [arm, layers, loss] : runs) {
    EXPECT_TRUE(plot.xAxis->range().contains(layers)) << layers;
    EXPECT_TRUE(plot.yAxis->range().contains(loss)) << loss;
  }
  EXPECT_EQ(plot.xAxis->scaleType(), QCPAxis::stLogarithmic);

  // The PNG: at each mean point, the arm's colour within a few pixels (export is 2x).
  const QString path = QString::fromStdString(outDir() + "/depth_content.png");
  savePlot(plot, path);
  const QImage png(path);
  ASSERT_EQ(png.width(), 960 * 2);
  auto colour_near = [&](double key, double value, const QColor& colour) {
    const int cx = static_cast<int>(std::lround(plot.xAxis->coordToPixel(key) * 2));
    const int cy = static_cast<int>(std::lround(plot.yAxis->coordToPixel(value) * 2));
    for (int dy = -6; dy <= 6; ++dy)
      for (int dx = -6; dx <= 6; ++dx) {
        const int x = cx + dx, y = cy + dy;
        if (x < 0 || y < 0 || x >= png.width() || y >= png.height()) continue;
        const QColor c = png.pixelColor(x, y);
        if (std::abs(c.red() - colour.red()) + std::abs(c.green() - colour.green()) +
                std::abs(c.blue() - colour.blue()) <=
            12)
          return true;
      }
    return false;
  };
  for (const auto& [d, loss] : vanilla_mean)
    EXPECT_TRUE(colour_near(d, loss, seriesColor(0))) << "vanilla mean at depth " << d;
  for (const auto& [d, loss] : looped_mean)
    EXPECT_TRUE(colour_near(d, loss, seriesColor(1))) << "looped mean at depth " << d;
  // And nowhere is there a third arm's colour.
  int third = 0;
  const QColor other = seriesColor(2);
  for (int y = 0; y < png.height(); y += 2)
    for (int x = 0; x < png.width(); x += 2) third += png.pixelColor(x, y) == other;
  EXPECT_EQ(third, 0);
}

TEST(Plots, FrameFollowsADarkPaletteOnScreenButExportsStayWhite) {
  ensureGuiApplication();
  const auto [table, result] = fittedSyntheticResults();
  QCustomPlot plot;
  plot.resize(640, 400);
  QPalette dark = plot.palette();
  const QColor ink(230, 230, 230), base(30, 30, 34);
  dark.setColor(QPalette::Base, base);
  dark.setColor(QPalette::Window, base);
  dark.setColor(QPalette::Text, ink);
  dark.setColor(QPalette::WindowText, ink);
  plot.setPalette(dark);
  drawFrontier(plot, {table, result, "Compute frontier"});
  EXPECT_EQ(plot.xAxis->tickLabelColor(), ink);
  EXPECT_EQ(plot.legend->textColor(), ink);
  const QImage shown = plot.toPixmap(640, 400).toImage();
  EXPECT_LT(QColor(shown.pixel(3, 3)).lightness(), 60) << "the screen follows the dark theme";
  const QString path = QString::fromStdString(outDir() + "/frontier_dark_theme_export.png");
  savePlot(plot, path);
  const QImage exported(path);
  ASSERT_FALSE(exported.isNull());
  EXPECT_EQ(QColor(exported.pixel(3, 3)), QColor(Qt::white)) << "exports are paper-white";
  EXPECT_EQ(plot.xAxis->tickLabelColor(), ink) << "back to the theme after the export";
}

// In a ladder with a sweep, the frontier shows the points its fit used (each rung's best sweep
// point) filled and the rest hollow and faint, with one legend line saying so.
TEST(Plots, FrontierFillsTheSweepPointsTheFitUsedAndFadesTheRest) {
  ensureGuiApplication();
  fitting::ResultsTable table;
  table.source = "synthetic sweep";
  for (auto [arm, A] : {std::tuple{"vanilla", 1.2}, {"growth", 1.1}})
    for (double c : {1e17, 1e18, 1e19, 1e20})
      for (double mult : {0.5, 1.0, 2.0}) {
        RunPoint p;
        p.arm = arm;
        p.size = "C" + std::to_string(static_cast<int>(std::log10(c)));
        p.compute_flops = c;
        // x1 is best at every rung: the other two points lose 1% and 2%.
        p.val_loss = (1.8 + A * std::pow(c / 1e18, -0.1)) * (mult == 1.0 ? 1
                                                             : mult < 1  ? 1.01
                                                                         : 1.02);
        p.sweep = "lr_mult" + std::string(mult == 0.5 ? "0.5" : mult == 1.0 ? "1" : "2");
        table.points.push_back(p);
      }
  auto options = fitting::defaultFrontierOptions();
  options.bootstrap = 0;
  const auto result = fitting::fitFrontier(table, options);
  QCustomPlot plot;
  plot.resize(640, 400);
  drawFrontier(plot, {table, result, "Compute frontier"});
  int filled = 0, faded = 0;
  for (int i = 0; i < plot.graphCount(); ++i) {
    const QCPGraph* g = plot.graph(i);
    if (g->lineStyle() != QCPGraph::lsNone) continue;
    if (g->scatterStyle().brush().style() == Qt::NoBrush)
      faded += g->dataCount();
    else
      filled += g->dataCount();
  }
  EXPECT_EQ(filled, 8);  // one point per (arm, rung): the x1 runs
  EXPECT_EQ(faded, 16);  // x0.5 and x2
  EXPECT_FALSE(legendLineWith(plot, "not fitted").isEmpty());
  // Without a sweep nothing is faded and the legend has no such line.
  QCustomPlot plain;
  plain.resize(640, 400);
  const auto synthetic = syntheticResults();
  drawFrontier(plain, {synthetic, fitting::fitFrontier(synthetic, options), "Compute frontier"});
  EXPECT_TRUE(legendLineWith(plain, "not fitted").isEmpty());
}

// Replots `plot` at `width` x `height` until the queued redraws of a legend fit have run.
void replotAt(QCustomPlot& plot, int width, int height) {
  plot.resize(width, height);
  plot.setViewport(QRect(0, 0, width, height));
  for (int i = 0; i < 4; ++i) {
    plot.replot();
    QCoreApplication::processEvents();
  }
}

// A legend inside a narrow plot shrinks to its axis rect, dropping the estimator and band lines
// when even its smallest font is too wide; widened, the plot gets them and its font back.
TEST(Plots, InsideLegendFitsANarrowPlotAndRecoversWhenWidened) {
  ensureGuiApplication();
  const auto [table, result] = fittedSyntheticResults();
  QCustomPlot plot;
  plot.resize(1400, 800);
  drawFrontier(plot, {table, result, "Compute frontier"});
  replotAt(plot, 1400, 800);
  const int wide_lines = plot.legend->itemCount();
  const double base_points = plot.legend->font().pointSizeF();
  EXPECT_FALSE(legendLineWith(plot, "prediction band").isEmpty());
  replotAt(plot, 330, 300);
  EXPECT_LE(plot.legend->outerRect().width(), plot.axisRect()->width());
  EXPECT_LT(plot.legend->font().pointSizeF(), base_points);
  EXPECT_LT(plot.legend->itemCount(), wide_lines);
  replotAt(plot, 1400, 800);
  EXPECT_EQ(plot.legend->itemCount(), wide_lines);
  EXPECT_DOUBLE_EQ(plot.legend->font().pointSizeF(), base_points);
}

TEST(Plots, FrontierMultiplierLensCurvesWriteAllFormats) {
  ensureGuiApplication();
  const auto table = syntheticResults();
  auto options = fitting::defaultFrontierOptions();
  options.baseline = "vanilla";
  options.bootstrap = 50;
  options.at = multiplierBandComputes(1e17);
  const auto result = fitting::fitFrontier(table, options);
  QCustomPlot plot;
  plot.resize(960, 600);
  drawFrontier(plot, {table, result, "Compute frontier"});
  EXPECT_GE(plot.graphCount(), 5);  // 2 arms x (points + curve) + E line
  EXPECT_TRUE(legendLineWith(plot, "estimator").startsWith("paper estimator"));
  expectWritten(plot, "frontier");
  drawMultiplier(plot, {result, 1e26, "Compute multiplier"});
  EXPECT_TRUE(plot.legend->visible());
  EXPECT_TRUE(legendLineWith(plot, "estimator").startsWith("paper estimator"));
  expectWritten(plot, "multiplier");
  drawLens(plot,
           {"run", {{100, {0.5, 3, 6, 4, 1.5, 0}}, {200, {0.4, 4, 7, 3, 1, 0}}}, 2.0, "Lens"});
  expectWritten(plot, "lens");
  CurvesPlotInput curves;
  curves.metric = "val/loss";
  for (int r = 0; r < 3; ++r) {
    CurveSeries s;
    s.label = QString("run %1").arg(r);
    for (int i = 1; i < 5000; ++i) {
      s.x.push_back(i);
      s.y.push_back(2 + r * 0.1 + 3 * std::exp(-i / 500.0));
    }
    curves.series.push_back(s);
  }
  curves.ema = 0.6;
  drawCurves(plot, curves);
  EXPECT_LE(redecimateCurves(plot), 6u * (2 * 1000 + 2));
  expectWritten(plot, "curves");
}

fitting::ProjectionSnapshot snapshot(double spent, std::vector<fitting::ArmProjection> arms) {
  fitting::ProjectionSnapshot s;
  s.target = 1e26;
  s.compute_spent = spent;
  s.baseline = "vanilla";
  s.arms = std::move(arms);
  return s;
}

const QCPGraph* graphNamed(const QCustomPlot& plot, const QString& prefix) {
  for (int g = 0; g < plot.graphCount(); ++g)
    if (plot.graph(g)->name().startsWith(prefix)) return plot.graph(g);
  return nullptr;
}

TEST(HistoryPlot, OneLineWithItsBandPerArmOnALogAxisOverDecades) {
  ensureGuiApplication();
  HistoryPlotInput input;
  // "deep" has no projection yet after the first run; "wide" joins at the third.
  input.history = {
      snapshot(1e17, {{"deep", NAN, NAN, NAN, 1, "needs 2 rungs"}}),
      snapshot(4e17, {{"deep", 2.0, 0.5, 9.0, 2, ""}}),
      snapshot(2e18, {{"deep", 3.0, 1.5, 6.0, 3, ""}, {"wide", 1.2, 0.8, 2, 2, ""}}),
      snapshot(9e18, {{"deep", 2.8, 2.0, 4.0, 4, ""}, {"wide", 1.1, 0.9, 1.4, 3, ""}})};
  QCustomPlot plot;
  plot.resize(800, 500);
  drawHistory(plot, input);
  EXPECT_EQ(plot.graphCount(), 2 * 3 + 1);  // per arm: line, upper and lower band; the 1x line
  const QCPGraph* deep = graphNamed(plot, "deep: ");
  const QCPGraph* wide = graphNamed(plot, "wide: ");
  ASSERT_TRUE(deep && wide);
  EXPECT_EQ(deep->dataCount(), 3);
  EXPECT_EQ(wide->dataCount(), 2);
  EXPECT_EQ(deep->data()->at(2)->key, 9e18);
  EXPECT_EQ(deep->data()->at(2)->value, 2.8);
  EXPECT_TRUE(deep->name().contains("2.8")) << deep->name().toStdString();  // the newest value
  ASSERT_TRUE(graphNamed(plot, "1\u00D7"));
  EXPECT_EQ(plot.xAxis->scaleType(), QCPAxis::stLogarithmic);  // 1e17..9e18 spans two decades
  EXPECT_LE(plot.xAxis->range().lower, 4e17);
  EXPECT_GE(plot.xAxis->range().upper, 9e18);
  EXPECT_LE(plot.yAxis->range().lower, 0.8);
  EXPECT_GE(plot.yAxis->range().upper, 6.0);
  expectWritten(plot, "history");

  // A ladder near its end moves the compute spent little: a linear axis.
  input.history = {snapshot(8e18, {{"deep", 2.9, 2.0, 4.1, 4, ""}}),
                   snapshot(9e18, {{"deep", 2.8, 2.0, 4.0, 5, ""}})};
  drawHistory(plot, input);
  EXPECT_EQ(plot.xAxis->scaleType(), QCPAxis::stLinear);
  EXPECT_EQ(graphNamed(plot, "deep: ")->dataCount(), 2);
}

TEST(HistoryPlot, NothingProjectedYetSaysWhy) {
  ensureGuiApplication();
  QCustomPlot plot;
  plot.resize(800, 500);
  drawHistory(plot, {{snapshot(1e17, {{"deep", NAN, NAN, NAN, 1, "needs 2 rungs"}})}, ""});
  EXPECT_EQ(plot.graphCount(), 1);  // only the 1x line
  bool note = false;
  for (int i = 0; i < plot.itemCount(); ++i)
    if (auto* text = qobject_cast<QCPItemText*>(plot.item(i)))
      note = note || text->text().startsWith("no projection yet");
  EXPECT_TRUE(note);
}

// A backtest of a noisy synthetic ladder (vanilla and growth, 7 rungs), drawn twice on one plot
// as the workbench redraws it: still two panels, one scatter and one error series per arm.
TEST(BacktestPlot, TwoPanelsAndARedrawKeepsThem) {
  ensureGuiApplication();
  fitting::ResultsTable table;
  table.source = "synthetic";
  for (const auto& [arm, A, gamma] : {std::tuple{"vanilla", 1.2, 0.111}, {"growth", 1.15, 0.117}})
    for (int i = 0; i < 7; ++i) {
      RunPoint p;
      p.arm = arm;
      p.compute_flops = 1e17 * std::pow(10.0, 0.5 * i);
      p.val_loss = 1.8 + A * std::pow(p.compute_flops / 1e18, -gamma) + 0.002 * ((i * 7) % 5 - 2);
      table.points.push_back(p);
    }
  fitting::FrontierOptions o = fitting::defaultFrontierOptions();
  o.bootstrap = 50;
  const fitting::BacktestResult r = fitting::backtestFrontier(table, o, 2);
  ASSERT_FALSE(r.points.empty());
  QCustomPlot plot;
  plot.resize(560, 340);
  for (bool compact : {false, true}) {
    drawBacktest(plot, {r, QStringLiteral("Backtest"), compact});
    EXPECT_EQ(plot.axisRectCount(), 2);
    EXPECT_EQ(plot.graphCount(), 2 * 2 + 2);  // per arm points and errors; diagonal, zero line
    EXPECT_EQ(plot.legend->visible(), !compact);
  }
  expectWritten(plot, "backtest_compact");
}

// A learning-rate sweep of two arms at two sizes (3 values each, synthetic losses), through the
// fit's envelope: one line per size of the arm drawn, the chosen point filled, a ring on the one
// rung whose best is the smallest value tried, and a base-2 log value axis.
TEST(SweepPlot, OneLinePerSizeAndARingAtAnEdge) {
  ensureGuiApplication();
  fitting::ResultsTable table;
  table.source = "synthetic";
  const std::map<std::string, std::vector<double>> losses = {
      {"vanilla/d4", {3.10, 3.00, 3.05}},  // best inside
      {"vanilla/d6", {2.80, 2.85, 2.95}},  // best at the smallest value: an edge
      {"grow/d4", {3.00, 2.95, 2.99}},
      {"grow/d6", {2.75, 2.70, 2.72}}};
  for (const auto& [rung, l] : losses)
    for (int i = 0; i < 3; ++i) {
      RunPoint p;
      p.arm = rung.substr(0, rung.find('/'));
      p.size = rung.substr(rung.find('/') + 1);
      p.seed = 1;
      p.compute_flops = p.size == "d4" ? 1e15 : 4e15;
      p.val_loss = l[i];
      p.sweep = "lr_mult" + std::string(i == 0 ? "0.5" : i == 1 ? "1" : "2");
      table.points.push_back(p);
    }
  const auto rungs = fitting::sweepEnvelope(table).rungs;
  ASSERT_EQ(rungs.size(), 4u);
  EXPECT_EQ(sweepPlotArms(rungs), (std::vector<std::string>{"grow", "vanilla"}));
  QCustomPlot plot;
  plot.resize(640, 400);
  drawSweep(plot, {rungs, {}, "vanilla", QStringLiteral("Sweep")});
  // Per size: its line and its chosen point; d6 also its edge ring.
  EXPECT_EQ(plot.graphCount(), 2 + 2 + 1);
  EXPECT_EQ(plot.xAxis->scaleType(), QCPAxis::stLogarithmic);
  int rings = 0;
  for (int i = 0; i < plot.graphCount(); ++i)
    if (plot.graph(i)->name().contains("edge")) {
      ++rings;
      EXPECT_DOUBLE_EQ(plot.graph(i)->data()->begin()->key, 0.5);
    }
  EXPECT_EQ(rings, 1);
  // The legend lists the sizes first, then the edge ring.
  ASSERT_EQ(plot.legend->itemCount(), 3);
  auto* last = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(2));
  ASSERT_NE(last, nullptr);
  EXPECT_TRUE(last->plottable()->name().contains("edge"));
  EXPECT_EQ(plot.graph(0)->name(), QStringLiteral("d4"));
  EXPECT_EQ(plot.graph(0)->data()->size(), 3);
  expectWritten(plot, "sweep");
  // Another arm on the same plot: no edge there.
  drawSweep(plot, {rungs, {}, "grow", QStringLiteral("Sweep")});
  EXPECT_EQ(plot.graphCount(), 2 + 2);
}

TEST(Plots, UnknownExtensionIsAUserError) {
  ensureGuiApplication();
  QCustomPlot plot;
  EXPECT_THROW(savePlot(plot, "/tmp/plot.gif"), UserError);
  EXPECT_THROW(savePlot(plot, "/nonexistent-dir/plot.png"), UserError);
}

}  // namespace
}  // namespace deepladder::plots
