// Bad data is a UserError naming the place and the problem, never a silent NaN: CSV cells
// (FILE:LINE:COLUMN), missing columns, missing baseline, too few points, losses rising with
// compute, non-positive compute, NaN/Inf, bad options, too few Chinchilla points.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/errors.h"
#include "fitting/chinchilla.h"
#include "fitting/frontier_fit.h"
#include "fitting/results_csv.h"

namespace deepladder::fitting {
namespace {

// Message of the UserError `f` throws ("" when it throws none).
template <typename F>
std::string userErrorOf(F f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_USER_ERROR_CONTAINS(expr, needle)                 \
  do {                                                           \
    const std::string message = userErrorOf([&] { expr; });      \
    EXPECT_NE(message.find(needle), std::string::npos)           \
        << "message: '" << message << "', expected: " << needle; \
  } while (0)

// A good ladder: two arms, four rungs each, losses falling.
const char* kGood =
    "arm,compute_flops,val_loss\n"
    "vanilla,1e18,3.0\nvanilla,1e19,2.8\nvanilla,1e20,2.65\nvanilla,1e21,2.55\n"
    "deep,1e18,2.95\ndeep,1e19,2.75\ndeep,1e20,2.6\ndeep,1e21,2.5\n";

FrontierOptions noBootstrap() {
  auto o = defaultFrontierOptions();
  o.bootstrap = 0;
  return o;
}

TEST(ResultsCsv, ReadsGoodFileWithOptionalColumns) {
  const auto t = parseResultsCsv(
      "# ladder export\narm,val_loss,compute_flops,params,tokens,depth\n"
      "vanilla,3.0,1e18,1e7,2e8,6\n\nvanilla,2.8,1e19,,,\n",
      "r.csv");
  ASSERT_EQ(t.points.size(), 2u);
  EXPECT_EQ(t.points[0].compute_flops, 1e18);
  EXPECT_EQ(t.points[0].val_loss, 3.0);
  EXPECT_EQ(t.points[0].depth, 6);
  EXPECT_TRUE(std::isnan(t.points[1].params));
  EXPECT_EQ(t.points[1].source_line, 5);  // comment, header, row, blank, row
}

TEST(ResultsCsv, NotANumberNamesFileLineColumn) {
  EXPECT_USER_ERROR_CONTAINS(
      parseResultsCsv("arm,compute_flops,val_loss\nvanilla,1e18,3\nvanilla,lots,2.9\n", "r.csv"),
      "r.csv:3:2: compute_flops: 'lots' is not a number");
}

TEST(ResultsCsv, NanAndInfAreRejected) {
  EXPECT_USER_ERROR_CONTAINS(
      parseResultsCsv("arm,compute_flops,val_loss\nvanilla,1e18,nan\n", "r.csv"),
      "r.csv:2:3: val_loss: 'nan' is NaN or infinite");
  EXPECT_USER_ERROR_CONTAINS(
      parseResultsCsv("arm,compute_flops,val_loss\nvanilla,inf,3\n", "r.csv"),
      "r.csv:2:2: compute_flops: 'inf' is NaN or infinite");
}

TEST(ResultsCsv, NonPositiveComputeIsRejected) {
  EXPECT_USER_ERROR_CONTAINS(
      parseResultsCsv("arm,compute_flops,val_loss\nvanilla,-1e18,3\n", "r.csv"),
      "r.csv:2:2: compute_flops: must be positive");
  EXPECT_USER_ERROR_CONTAINS(parseResultsCsv("arm,compute_flops,val_loss\nvanilla,0,3\n", "r.csv"),
                             "must be positive");
}

TEST(ResultsCsv, MissingColumnAndRaggedRowsAreRejected) {
  EXPECT_USER_ERROR_CONTAINS(parseResultsCsv("arm,val_loss\nvanilla,3\n", "r.csv"),
                             "missing column 'compute_flops'");
  EXPECT_USER_ERROR_CONTAINS(parseResultsCsv("arm,compute_flops,val_loss\nvanilla,1e18\n", "r.csv"),
                             "r.csv:2: has 2 fields, the header has 3");
  EXPECT_USER_ERROR_CONTAINS(parseResultsCsv("", "r.csv"), "r.csv: is empty");
  EXPECT_USER_ERROR_CONTAINS(readResultsCsv("/nonexistent/r.csv"), "cannot be opened");
}

TEST(FrontierInput, GoodLadderPasses) {
  EXPECT_NO_THROW(validateFrontierInput(parseResultsCsv(kGood, "r.csv"), noBootstrap()));
}

TEST(FrontierInput, MissingBaselineArmIsNamed) {
  auto o = noBootstrap();
  o.baseline = "transformer";
  EXPECT_USER_ERROR_CONTAINS(fitFrontier(parseResultsCsv(kGood, "r.csv"), o),
                             "has no baseline arm 'transformer'");
  EXPECT_USER_ERROR_CONTAINS(fitFrontier(parseResultsCsv(kGood, "r.csv"), o),
                             "the arms are: deep, vanilla");
}

TEST(FrontierInput, FewerPointsThanParameters) {
  // Baseline with 2 rungs < 3 parameters.
  EXPECT_USER_ERROR_CONTAINS(
      fitFrontier(parseResultsCsv("arm,compute_flops,val_loss\nvanilla,1e18,3\nvanilla,1e19,2.8\n"
                                  "vanilla,1e19,2.81\n",
                                  "r.csv"),
                  noBootstrap()),
      "arm vanilla: has 2 distinct compute value(s), fewer than the 3 parameters");
  // Other arm with 1 rung < 2 parameters.
  EXPECT_USER_ERROR_CONTAINS(
      fitFrontier(parseResultsCsv(std::string(kGood) + "loop,1e18,2.9\n", "r.csv"), noBootstrap()),
      "arm loop: has 1 distinct compute value(s), fewer than the 2 parameters");
}

TEST(FrontierInput, LossesNotDecreasingWithCompute) {
  EXPECT_USER_ERROR_CONTAINS(
      fitFrontier(
          parseResultsCsv(std::string(kGood) + "loop,1e18,2.5\nloop,1e19,2.7\nloop,1e20,2.9\n",
                          "r.csv"),
          noBootstrap()),
      "arm loop: loss does not decrease with compute");
}

TEST(FrontierInput, NanInfAndNonPositiveFromOtherSources) {
  // Tables built in code (e.g. read from the database) get the same checks.
  ResultsTable t = parseResultsCsv(kGood, "r.csv");
  t.points[2].val_loss = std::nan("");
  EXPECT_USER_ERROR_CONTAINS(fitFrontier(t, noBootstrap()),
                             "r.csv:4: vanilla: compute or loss is NaN");
  t = parseResultsCsv(kGood, "r.csv");
  t.points[5].compute_flops = -1;
  EXPECT_USER_ERROR_CONTAINS(fitFrontier(t, noBootstrap()), "r.csv:7: deep: non-positive compute");
  t.points.clear();
  EXPECT_USER_ERROR_CONTAINS(fitFrontier(t, noBootstrap()), "has no runs");
}

TEST(FrontierInput, BadOptions) {
  const auto t = parseResultsCsv(kGood, "r.csv");
  auto o = noBootstrap();
  o.c_ref = 0;
  EXPECT_USER_ERROR_CONTAINS(fitFrontier(t, o), "--c-ref");
  o = noBootstrap();
  o.at = {1e20, -1};
  EXPECT_USER_ERROR_CONTAINS(fitFrontier(t, o), "--at");
  o = noBootstrap();
  o.bootstrap = -5;
  EXPECT_USER_ERROR_CONTAINS(fitFrontier(t, o), "--bootstrap");
}

TEST(ChinchillaInput, TooFewPointsAndBadValues) {
  std::vector<SizePoint> pts = {{1e8, 1e9, 3.0}, {1e8, 1e10, 2.8}};
  EXPECT_USER_ERROR_CONTAINS(fitChinchillaApproach3(pts), "fewer than the 5 parameters");
  EXPECT_USER_ERROR_CONTAINS(parseSizesCsv("params,tokens\n1e8,1e9\n", "s.csv"),
                             "missing column 'loss'");
  EXPECT_USER_ERROR_CONTAINS(parseSizesCsv("params,tokens,loss\n1e8,-1e9,3\n", "s.csv"),
                             "s.csv:2:2: tokens: must be positive");
}

}  // namespace
}  // namespace deepladder::fitting
