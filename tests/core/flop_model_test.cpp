// FLOP model and parameter counts against hand counts.
#include "core/flop_model.h"

#include <gtest/gtest.h>

using namespace deepladder;

TEST(FlopModel, HandCountForASmallGeluModel) {
  ModelConfig m;
  m.vocab_size = 256;
  m.d_model = 64;
  m.n_layer = 2;
  m.n_head = 4;
  m.seq_len = 64;
  m.tie_embeddings = true;
  // block: 4*64*64 (attn) + 2*64*256 (mlp) + 2*64 (norms) = 16384 + 32768 + 128 = 49280
  const ParameterCounts c = countParameters(m);
  EXPECT_EQ(c.per_block, 49280);
  EXPECT_EQ(c.blocks, 98560);
  EXPECT_EQ(c.embedding, 16384);
  EXPECT_EQ(c.total, 16384 + 98560 + 64);  // tied: the unembedding is the embedding
  // F = 6*(98560 + 16384) + 6*2*64*(64 + 1) = 689664 + 49920
  EXPECT_DOUBLE_EQ(flopsPerToken(m), 689664.0 + 49920.0);
}

TEST(FlopModel, UntiedSwiGluCountsTheHeadOnce) {
  ModelConfig m;
  m.vocab_size = 1000;
  m.d_model = 96;
  m.n_layer = 3;
  m.n_head = 3;
  m.seq_len = 32;
  m.mlp = MlpKind::swiglu;
  m.tie_embeddings = false;
  const int64_t hidden = 256;  // 256 ceil(floor(768/3)/256) = 256
  EXPECT_EQ(m.mlpHidden(), hidden);
  const int64_t block = 4 * 96 * 96 + 3 * 96 * hidden + 2 * 96;
  const ParameterCounts c = countParameters(m);
  EXPECT_EQ(c.per_block, block);
  EXPECT_EQ(c.total, 96000 + 3 * block + 96 + 96000);
  EXPECT_DOUBLE_EQ(flopsPerToken(m), 6.0 * (3 * block + 96000) + 6.0 * 3 * 96 * 33);
}

TEST(FlopModel, AttentionCountsTheCausalAverageOfTPlusOneOverTwoKeys) {
  // The growth paper's accounting: 12 d FLOPs per attended key (QK^T and AV, forward and
  // backward), (T + 1) / 2 keys per query on average under a causal mask.
  EXPECT_DOUBLE_EQ(flopsPerTokenOf(/*executed_blocks=*/1, /*per_block_params=*/0,
                                   /*unembedding_params=*/0, /*d_model=*/768, /*seq_len=*/2048),
                   12.0 * 768 * (2048 + 1) / 2.0);
  EXPECT_DOUBLE_EQ(flopsPerTokenOf(3, 100, 7, 8, 15), 6.0 * (300 + 7) + 6.0 * 3 * 8 * 16);
}

TEST(FlopModel, PhasedFlopsSumBothPhasesAfterTheCrossover) {
  EXPECT_DOUBLE_EQ(phasedTrainingFlops(2.0, 5.0, -1, 10, 3), 3.0 * 10 * 2.0);
  EXPECT_DOUBLE_EQ(phasedTrainingFlops(2.0, 5.0, 4, 4, 3), 3.0 * 4 * 2.0);
  EXPECT_DOUBLE_EQ(phasedTrainingFlops(2.0, 5.0, 4, 10, 3), 3.0 * (4 * 2.0 + 6 * 5.0));
}
