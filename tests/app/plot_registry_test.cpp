// The plot registry (ui/plots/plot_registry.h): a plot kind registered here, with its own option,
// appears in `deepladder plot --help` and renders through `deepladder plot` (the command and the
// built-in kinds are compiled into this test as into the CLI); a kind name that is no kind gets
// the registry's list and the nearest name; the built-in kinds, the serial-task heatmap among
// them, are all registered.
#include "ui/plots/plot_registry.h"

#include <gtest/gtest.h>
#include <qcustomplot.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include "app/command_registry.h"
#include "core/errors.h"

namespace deepladder::app {
namespace {

namespace fs = std::filesystem;

// A test kind: --stripes N vertical bars, drawn with QCustomPlot like every plot.
struct StripesKind {
  int stripes = 2;
  int rendered_with = -1;  // what render saw, -1 before
};
StripesKind& stripesKind() {
  static StripesKind kind;
  return kind;
}

void registerStripesOnce() {
  if (plots::findPlotKind("test-stripes")) return;
  plots::registerPlotKind({
      "test-stripes",
      "bars registered by the plot registry test",
      [](CLI::App& cmd) { cmd.add_option("--stripes", stripesKind().stripes, "How many bars"); },
      [](const plots::PlotRequest&) -> plots::PlotDrawing {
        const int n = stripesKind().rendered_with = stripesKind().stripes;
        return [n](QCustomPlot& plot) {
          auto* bars = new QCPBars(plot.xAxis, plot.yAxis);
          for (int i = 0; i < n; ++i) bars->addData(i, i + 1);
          plot.rescaleAxes();
        };
      },
  });
}

// The CLI as `deepladder` builds it, with the commands compiled into this test (`plot`).
std::unique_ptr<CLI::App> makeCli() {
  registerStripesOnce();
  auto cli = std::make_unique<CLI::App>("deepladder");
  for (auto& entry : commandRegistry()) entry.install(*cli);
  return cli;
}

void parse(CLI::App& cli, std::vector<std::string> args) {
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  cli.parse(args);
}

class PlotRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("QT_QPA_PLATFORM", "offscreen", 0);
    std::string pattern = (fs::temp_directory_path() / "deepladder-plot-XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(PlotRegistryTest, KindRegisteredInTheTestAppearsInPlotHelp) {
  auto cli = makeCli();
  CLI::App* plot = cli->get_subcommand("plot");
  ASSERT_NE(plot, nullptr);
  const std::string help = plot->help();
  EXPECT_NE(help.find("test-stripes"), std::string::npos) << help;
  EXPECT_NE(help.find("bars registered by the plot registry test"), std::string::npos) << help;
  EXPECT_NE(help.find("--stripes"), std::string::npos) << "its own option: " << help;
  EXPECT_NE(help.find("squaring-heatmap"), std::string::npos) << "a built-in kind: " << help;
}

TEST_F(PlotRegistryTest, KindRegisteredInTheTestRendersThroughPlot) {
  auto cli = makeCli();
  const std::string out = (dir_ / "stripes.png").string();
  commandExitCode() = -1;
  parse(*cli, {"plot", "test-stripes", "--stripes", "5", "--out", out});
  EXPECT_EQ(commandExitCode(), 0);
  EXPECT_EQ(stripesKind().rendered_with, 5) << "the kind's option reached its renderer";
  std::ifstream png(out, std::ios::binary);
  char magic[8] = {};
  png.read(magic, 8);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG") << out;
  EXPECT_GT(fs::file_size(out), 1000u) << "a drawn plot, not an empty image";
}

TEST_F(PlotRegistryTest, UnknownKindNamesTheRegisteredKindsAndTheNearestOne) {
  auto cli = makeCli();
  const std::string out = (dir_ / "x.png").string();
  try {
    parse(*cli, {"plot", "test-stripez", "--out", out});
    FAIL() << "an unknown kind was accepted";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("did you mean 'test-stripes'"), std::string::npos) << message;
    EXPECT_NE(message.find("frontier"), std::string::npos) << message;
  }
  EXPECT_FALSE(fs::exists(out)) << "nothing written for a refused kind";
}

TEST_F(PlotRegistryTest, EveryBuiltInKindIsRegisteredOnce) {
  for (const char* name : {"frontier", "multiplier", "lens", "curves", "squaring", "depth",
                           "backtest", "sweep", "squaring-heatmap"})
    EXPECT_NE(plots::findPlotKind(name), nullptr) << name;
  EXPECT_THROW(
      plots::registerPlotKind({"frontier",
                               "again",
                               {},
                               [](const plots::PlotRequest&) { return plots::PlotDrawing{}; }}),
      std::logic_error);
}

}  // namespace
}  // namespace deepladder::app
