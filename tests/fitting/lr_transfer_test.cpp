// Learning-rate transfer (fitting/lr_transfer.h) on synthetic swept ladders: five rungs of
// N = 1e5 .. 1e7 (half-decade steps), lr_mult 0.25 .. 4, loss = a_r + 0.04 (ln v - ln v*_r)^2
// plus Gaussian noise of sd 0.003 (about the seed-to-seed spread of the quick ladder's final
// losses at d5). Drifting: v* = 1.5x per decade of N; flat: v* = 1 at every size.
#include "fitting/lr_transfer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

using namespace deepladder;
using namespace deepladder::fitting;

namespace {

ResultsTable sweptLadder(double factor_per_decade, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.003);
  ResultsTable t;
  t.source = "synthetic";
  const std::vector<std::string> values = {"0.25", "0.5", "1", "2", "4"};
  for (int k = 0; k < 5; ++k) {
    const double n = 1e5 * std::pow(10.0, 0.5 * k);
    const double best = std::log(std::pow(factor_per_decade, std::log10(n / 1e6)));
    for (const std::string& v : values) {
      RunPoint p;
      p.arm = "vanilla";
      p.size = "d" + std::to_string(3 + k);
      p.params = n;
      p.compute_flops = 6 * n * 20 * n;
      p.sweep = "lr_mult" + v;
      const double x = std::log(std::stod(v));
      p.val_loss = 3.0 - 0.3 * k + 0.04 * (x - best) * (x - best) + noise(rng);
      t.points.push_back(p);
    }
  }
  return t;
}

}  // namespace

TEST(LrTransfer, DriftingOptimumOfOneAndAHalfPerDecadeIsFlagged) {
  const LrTransfer t = learningRateTransfer(sweptLadder(1.5, 1));
  ASSERT_EQ(t.arms.size(), 1u);
  ASSERT_EQ(t.rungs.size(), 5u);
  const ArmTransfer& a = t.arms[0];
  ASSERT_TRUE(a.determined);
  EXPECT_TRUE(a.drifts);
  EXPECT_LE(a.per_decade_lo, 1.5);
  EXPECT_GE(a.per_decade_hi, 1.5);
  EXPECT_NE(a.diagnostic.message.find("drifts with size"), std::string::npos);
  for (const RungOptimum& r : t.rungs) {
    EXPECT_TRUE(r.fitted) << r.size;
    EXPECT_LE(r.lo, r.optimum);
    EXPECT_GE(r.hi, r.optimum);
  }
  EXPECT_NE(lrTransferMarkdown(t).find("drifts with size"), std::string::npos);
  EXPECT_TRUE(lrTransferToJson(t)["arms"][0]["drifts"].get<bool>());
}

TEST(LrTransfer, FlatOptimumTransfers) {
  const LrTransfer t = learningRateTransfer(sweptLadder(1.0, 2));
  ASSERT_EQ(t.arms.size(), 1u);
  ASSERT_TRUE(t.arms[0].determined);
  EXPECT_FALSE(t.arms[0].drifts);
  EXPECT_NE(t.arms[0].diagnostic.message.find("transfers"), std::string::npos);
  for (const RungOptimum& r : t.rungs) {
    EXPECT_TRUE(r.inside);
    EXPECT_NEAR(std::log(r.optimum), 0.0, 0.3) << r.size;
  }
}

TEST(LrTransfer, TwoValuesPerRungGiveNoOptimumAndNoVerdict) {
  ResultsTable t = sweptLadder(1.0, 3);
  t.points.erase(std::remove_if(t.points.begin(), t.points.end(),
                                [](const RunPoint& p) {
                                  return p.sweep != "lr_mult0.5" && p.sweep != "lr_mult1";
                                }),
                 t.points.end());
  const LrTransfer r = learningRateTransfer(t);
  EXPECT_TRUE(r.arms.empty());
  ASSERT_EQ(r.rungs.size(), 5u);
  EXPECT_FALSE(r.rungs[0].fitted);
}
