// The published growth ladder's compute, rung by rung: resources/ladders/growth-fineweb.toml as
// `deepladder plan` expands it (loadLadder) against the paper's own table of compute per rung
// (tests/fixtures/growth-paper/fineweb_ladders.csv, see its README): all eight arms, every depth,
// to the 6 significant digits the paper prints. Also deep_vanilla_grow's recipe as the paper ran
// it (tokens per parameter 6, crossover 0.5, p+2c+o -> p+4c+o blocks).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "core/architecture.h"
#include "core/flop_model.h"
#include "core/ladder/ladder_spec.h"

namespace deepladder::ladder {
namespace {

const std::string kSource = DEEPLADDER_SOURCE_DIR;

// (arm, depth) -> the compute column as printed ("3.252671e+17").
std::map<std::pair<std::string, int64_t>, std::string> publishedCompute() {
  std::ifstream in(kSource + "/tests/fixtures/growth-paper/fineweb_ladders.csv");
  std::map<std::pair<std::string, int64_t>, std::string> rows;
  std::string line;
  std::getline(in, line);  // header
  EXPECT_EQ(line, "arm,depth,compute_flops,val_loss");
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream fields(line);
    std::string arm, depth, flops;
    std::getline(fields, arm, ',');
    std::getline(fields, depth, ',');
    std::getline(fields, flops, ',');
    rows[{arm, std::stoll(depth)}] = flops;
  }
  return rows;
}

std::string sixDigits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6e", value);
  return text;
}

const LadderSpec& growthFineweb() {
  static const LadderSpec spec = loadLadder(kSource + "/resources/ladders/growth-fineweb.toml");
  return spec;
}

TEST(GrowthPaperCompute, EveryRungOfEveryArmEqualsThePublishedComputeTo6Digits) {
  const auto published = publishedCompute();
  ASSERT_EQ(published.size(), 58u);  // 8 + 8 rungs (to d20) + 6 arms x 7 rungs (to d18)
  const LadderSpec& spec = growthFineweb();
  ASSERT_EQ(spec.runs.size(), published.size());
  for (const PlannedRun& run : spec.runs) {
    const auto row = published.find({run.arm, run.depth});
    ASSERT_NE(row, published.end()) << run.name << " is not in the paper's table";
    EXPECT_EQ(sixDigits(run.flops), row->second) << run.name;
  }
}

TEST(GrowthPaperCompute, PlannedFlopsAreTheWorkersFlops) {
  // One FLOP function: what plan stores is what the worker counts after the run's last step.
  for (const PlannedRun& run : growthFineweb().runs) {
    const int64_t tokens_per_step = run.config.train.batch_size * run.config.model.seq_len;
    const int64_t steps = run.config.train.steps;
    EXPECT_EQ(run.flops, flopsAfterSteps(run.config.model, steps, steps, tokens_per_step))
        << run.name;
    EXPECT_EQ(run.flops, trainingFlops(run.config.model, steps, tokens_per_step)) << run.name;
  }
}

TEST(GrowthPaperCompute, DeepVanillaGrowIsDeepVanillaAt6TokensPerParameterGrowingAtHalfway) {
  for (const PlannedRun& run : growthFineweb().runs) {
    if (run.arm != "deep_vanilla_grow") continue;
    const BlockSplit s = splitPreludeCoreCoda(run.depth);
    const ModelConfig& m = run.config.model;
    EXPECT_EQ(m.arch, Arch::vanilla) << run.name;
    EXPECT_EQ(m.n_layer, s.prelude + 2 * s.core + s.coda) << run.name;
    EXPECT_EQ(m.grow_layers, s.prelude + 4 * s.core + s.coda) << run.name;
    EXPECT_DOUBLE_EQ(m.grow_fraction, 0.5) << run.name;
    EXPECT_EQ(m.rewarm_steps, 40) << run.name;
    EXPECT_EQ(run.crossover_step, run.config.train.steps / 2) << run.name;
    // The matched matrix budget: 6 N (N of the p+2c+o model, as deep_vanilla's) tokens scaled by
    // m(L2) / (f m(L2) + (1 - f) m(L4)), so it trains fewer tokens than deep_vanilla.
    for (const PlannedRun& deep : growthFineweb().runs) {
      if (deep.arm != "deep_vanilla" || deep.depth != run.depth) continue;
      EXPECT_EQ(run.params, deep.params) << run.name;
      EXPECT_LT(run.config.train.steps, deep.config.train.steps) << run.name;
      EXPECT_DOUBLE_EQ(run.config.train.lr, deep.config.train.lr) << run.name;
      EXPECT_DOUBLE_EQ(run.config.train.weight_decay, deep.config.train.weight_decay);
      EXPECT_EQ(run.config.train.warmup_steps, deep.config.train.warmup_steps);
    }
  }
  auto steps = [](const std::string& name) {
    for (const PlannedRun& run : growthFineweb().runs)
      if (run.name == name) return run.config.train.steps;
    return int64_t{-1};
  };
  // Hand check at d6 (w 768, H 2048, V 50304, B 524288): N = 8 (4 w^2 + 3 w H) + 2 V w =
  // 133890048; m(8) = 95256576, m(12) = 123568128; S = round(6 N / B x m(8) / (m(8)/2 +
  // m(12)/2)) = round(1532.25 x 0.870617..) = 1334; c = 667.
  EXPECT_EQ(steps("deep_vanilla_grow-d6-s1"), 1334);
  EXPECT_EQ(steps("deep_vanilla_grow-d18-s1"), 16349);
}

}  // namespace
}  // namespace deepladder::ladder
