// Depth architectures without LibTorch: the prelude/core/coda split, the arm presets' parameter
// counts, executed depth and FLOPs per token against hand counts, growth phases, and d_lens.
#include "core/architecture.h"

#include <gtest/gtest.h>

#include "core/flop_model.h"
#include "core/lens_depth.h"

using namespace deepladder;

TEST(Architecture, SplitGivesTheExtraBlockToCoreThenCoda) {
  struct Case {
    int64_t n, p, c, o;
  };
  const Case cases[] = {{3, 1, 1, 1},  {4, 1, 2, 1},  {5, 1, 2, 2}, {6, 2, 2, 2},
                        {7, 2, 3, 2},  {8, 2, 3, 3},  {9, 3, 3, 3}, {10, 3, 4, 3},
                        {11, 3, 4, 4}, {12, 4, 4, 4}, {16, 5, 6, 5}};
  for (const Case& c : cases) {
    const BlockSplit s = splitPreludeCoreCoda(c.n);
    EXPECT_EQ(s.prelude, c.p) << c.n;
    EXPECT_EQ(s.core, c.c) << c.n;
    EXPECT_EQ(s.coda, c.o) << c.n;
    EXPECT_EQ(s.prelude + s.core + s.coda, c.n);
  }
}

namespace {

ModelConfig rung(const std::string& preset) {
  ModelConfig m;
  m.vocab_size = 256;
  m.d_model = 128;
  m.n_layer = 6;
  m.n_head = 4;
  m.seq_len = 64;
  applyArmPreset(preset, m);
  return m;
}

// Hand counts at d_model 128, n_layer 6 (split 2/2/2), vocab 256, GELU (H = 512), tied:
//   per block 4*128^2 + 2*128*512 + 2*128 = 196864; embedding 32768; final norm 128.
constexpr int64_t kBlock = 196864;
constexpr int64_t kRest = 32768 + 128;
// F(L) = 6 (L*196864 + 32768) + 6 L 128 (64 + 1)
constexpr double flopsFor(int64_t executed) {
  return 6.0 * (executed * 196864.0 + 32768.0) + 6.0 * executed * 128 * 65;
}

}  // namespace

TEST(Architecture, ArmPresetsAtD128L6MatchHandCounts) {
  struct Expect {
    const char* arm;
    int64_t distinct, executed, distinct_after, executed_after;
  };
  const Expect table[] = {
      {"vanilla", 6, 6, 6, 6},       {"deep_vanilla", 8, 8, 8, 8},
      {"operator_1", 6, 6, 6, 6},    {"loop_2", 6, 8, 6, 8},
      {"untied_2", 8, 8, 8, 8},      {"loop_grow", 6, 8, 6, 12},
      {"untied_grow", 8, 8, 12, 12}, {"deep_vanilla_grow", 8, 8, 12, 12},
  };
  for (const Expect& e : table) {
    const ModelConfig m = rung(e.arm);
    const ParameterCounts c = countParameters(m);
    EXPECT_EQ(c.total, e.distinct * kBlock + kRest) << e.arm;
    EXPECT_EQ(c.total_after_growth, e.distinct_after * kBlock + kRest) << e.arm;
    EXPECT_EQ(executedBlocks(m), e.executed) << e.arm;
    EXPECT_EQ(executedBlocks(m, true), e.executed_after) << e.arm;
    EXPECT_DOUBLE_EQ(flopsPerToken(m), flopsFor(e.executed)) << e.arm;
    EXPECT_DOUBLE_EQ(flopsPerToken(m, true), flopsFor(e.executed_after)) << e.arm;
  }
  EXPECT_DOUBLE_EQ(flopsFor(6), 7583232.0);  // the vanilla figure, by hand
}

TEST(Architecture, GrowthRunSumsItsTwoPhases) {
  const ModelConfig m = rung("untied_grow");
  EXPECT_EQ(growthStep(m, 977), 732);  // int(0.75 * 977)
  EXPECT_EQ(growthStep(rung("untied_2"), 977), -1);
  const double expected = 1024.0 * (732 * flopsFor(8) + 245 * flopsFor(12));
  EXPECT_DOUBLE_EQ(trainingFlops(m, 977, 1024), expected);
  EXPECT_DOUBLE_EQ(flopsAfterSteps(m, 977, 100, 1024), 100 * 1024.0 * flopsFor(8));
  EXPECT_DOUBLE_EQ(flopsAfterSteps(m, 977, 800, 1024),
                   1024.0 * (732 * flopsFor(8) + 68 * flopsFor(12)));
}

// deep_vanilla_grow at d8 (split 2/3/3): p + 2c + o = 11 blocks grow to p + 4c + o = 17. The
// middle 2c = 6 blocks (2..7) are followed by their copies, as untied_grow's cores C1 C2 become
// C1 C2 C1 C2; prelude (0, 1) and coda (8, 9, 10) stay where they were.
TEST(Architecture, DeepVanillaGrowDuplicatesTheMiddleSectionInPlace) {
  ModelConfig m = rung("vanilla");
  m.n_layer = 8;
  applyArmPreset("deep_vanilla_grow", m);
  ASSERT_EQ(m.n_layer, 11);
  ASSERT_EQ(m.grow_layers, 17);
  const std::vector<StackSlot> layout = grownStackLayout(m.n_layer, m.grow_layers);
  const std::vector<int64_t> sources = {0, 1, 2, 3, 4, 5, 6, 7, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  ASSERT_EQ(layout.size(), sources.size());
  for (size_t j = 0; j < layout.size(); ++j) {
    EXPECT_EQ(layout[j].source, sources[j]) << j;
    EXPECT_EQ(layout[j].copy, j >= 8 && j < 14) << j;
  }
  // At every paper depth the section is exactly the two cores, after the prelude.
  for (int64_t depth = 6; depth <= 20; depth += 2) {
    ModelConfig d = rung("vanilla");
    d.n_layer = depth;
    applyArmPreset("deep_vanilla_grow", d);
    const BlockSplit s = splitPreludeCoreCoda(depth);
    const auto grown = grownStackLayout(d.n_layer, d.grow_layers);
    for (int64_t i = 0; i < 2 * s.core; ++i) {
      const StackSlot& slot = grown[static_cast<size_t>(s.prelude + 2 * s.core + i)];
      EXPECT_TRUE(slot.copy) << depth;
      EXPECT_EQ(slot.source, s.prelude + i) << depth;
    }
    EXPECT_EQ(grown.back().source, d.n_layer - 1) << depth;  // the coda's last block ends it
    EXPECT_FALSE(grown.back().copy) << depth;
  }
}

TEST(Architecture, StackGrowingPastTwiceItsDepthAppendsCopiesOfTheWholeStack) {
  const auto layout = grownStackLayout(3, 7);
  const std::vector<int64_t> sources = {0, 1, 2, 0, 1, 2, 0};
  for (size_t j = 0; j < layout.size(); ++j) {
    EXPECT_EQ(layout[j].source, sources[j]) << j;
    EXPECT_EQ(layout[j].copy, j >= 3) << j;
  }
  EXPECT_THROW(grownStackLayout(4, 4), std::invalid_argument);
  EXPECT_THROW(grownStackLayout(0, 2), std::invalid_argument);
}

TEST(LensDepth, PeakAtTheEndHasNoDepth) {
  const LensDepth d = lensDepth({1.0, 2.0, 3.0, 9.0}, 2.0);
  EXPECT_EQ(d.peak_block, 3);
  EXPECT_FALSE(d.depth);
}

TEST(LensDepth, NeverBelowEpsHasNoDepth) {
  const LensDepth d = lensDepth({5.0, 9.0, 4.0, 2.5}, 2.0);
  EXPECT_EQ(d.peak_block, 1);
  EXPECT_FALSE(d.depth);
}

TEST(LensDepth, FirstBlockAfterThePeakWithinEps) {
  const LensDepth d = lensDepth({3.0, 8.0, 6.0, 1.5, 0.5, 0.0}, 2.0);
  EXPECT_EQ(d.peak_block, 1);
  ASSERT_TRUE(d.depth);
  EXPECT_EQ(*d.depth, 3);
  // exactly eps qualifies (KL <= eps)
  EXPECT_EQ(*lensDepth({8.0, 2.0, 0.0}, 2.0).depth, 1);
}

TEST(LensDepth, TiesTakeTheFirstMaximum) {
  const LensDepth d = lensDepth({9.0, 1.0, 9.0, 1.0}, 2.0);
  EXPECT_EQ(d.peak_block, 0);
  EXPECT_EQ(*d.depth, 1);
}
