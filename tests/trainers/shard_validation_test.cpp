// Validation on llm.c shards: the validation set is the first data.val_tokens tokens of
// the held-out shard cut into contiguous seq_len + 1 token windows, all of them, batched (the last
// batch shorter), with the loss the token mean over every window: the same however the windows
// are batched, and train.eval_batches does not subsample it. The shards are synthetic, written
// here in the llm.c format (magic 20240520, version 1, uint16 tokens) by data::writeShard.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "tiny_run.h"
#include "trainers/data/token_data.h"
#include "trainers/eval_depth.h"
#include "trainers/gpt.h"

namespace deepladder::trainers {
namespace {

std::vector<uint16_t> syntheticTokens(int count, unsigned seed) {
  std::vector<uint16_t> tokens;
  unsigned state = seed;
  for (int i = 0; i < count; ++i) {
    state = state * 1103515245u + 12345u;
    tokens.push_back(static_cast<uint16_t>(i % 3 == 0 ? (state >> 16) % 64 : (i * 5) % 64));
  }
  return tokens;
}

torch::Tensor toTensor(const data::Batch& batch) {
  return torch::from_blob(const_cast<int32_t*>(batch.tokens.data()),
                          {batch.rows, batch.seq_len + 1}, torch::kInt32)
      .to(torch::kInt64);
}

TEST(ShardValidation, WindowsAreTheContiguousFirstValTokensAllOfThemBatched) {
  const auto dir = testing::makeWorkspace("shardwindows");
  const std::string path = (dir / "fineweb_val_000000.bin").string();
  const auto tokens = syntheticTokens(1000, 1);
  data::writeShard(path, tokens);
  DataConfig config;
  config.kind = DataKind::shards;
  config.train = path;
  config.val = path;
  config.val_tokens = 95;  // 9 windows of 10 tokens, the tail of 5 left out
  const auto val = data::openTokenData(config, data::Split::kValidation, /*seq_len=*/9);
  const auto batches = data::validationBatches(config, *val, /*eval_batches=*/1, /*rows=*/4, 9);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0].rows, 4);
  EXPECT_EQ(batches[1].rows, 4);
  EXPECT_EQ(batches[2].rows, 1);
  int64_t window = 0;
  for (const auto& batch : batches)
    for (int64_t row = 0; row < batch.rows; ++row, ++window)
      for (int64_t t = 0; t < 10; ++t)
        EXPECT_EQ(batch.tokens[static_cast<size_t>(row * 10 + t)], tokens[window * 10 + t]);
  // A shard shorter than val_tokens: every whole window of it.
  config.val_tokens = 10'000'000;
  EXPECT_EQ(data::validationBatches(config, *val, 1, 1000, 9).at(0).rows, 100);
  std::filesystem::remove_all(dir);
}

TEST(ShardValidation, LossIsTheTokenMeanWhateverTheBatching) {
  const auto dir = testing::makeWorkspace("shardmean");
  const std::string path = (dir / "val.bin").string();
  data::writeShard(path, syntheticTokens(2000, 2));
  DataConfig config;
  config.kind = DataKind::shards;
  config.train = path;
  config.val = path;
  config.val_tokens = 170;  // 10 windows of 17
  const auto val = data::openTokenData(config, data::Split::kValidation, 16);
  ModelConfig m;
  m.vocab_size = 64;
  m.d_model = 16;
  m.n_head = 2;
  m.n_layer = 2;
  m.seq_len = 16;
  torch::manual_seed(5);
  GPT model(m);
  std::vector<torch::Tensor> by_three, all_at_once;
  for (const auto& b : data::validationBatches(config, *val, 1, 3, 16))
    by_three.push_back(toTensor(b));
  for (const auto& b : data::validationBatches(config, *val, 1, 10, 16))
    all_at_once.push_back(toTensor(b));
  ASSERT_EQ(by_three.size(), 4u);  // 3 + 3 + 3 + 1 windows
  ASSERT_EQ(all_at_once.size(), 1u);
  EXPECT_NEAR(validate(model, by_three, false).loss, validate(model, all_at_once, false).loss,
              1e-5);
  std::filesystem::remove_all(dir);
}

TEST(ShardValidation, EvalBatchesDoesNotSubsampleTheShardValidationSet) {
  const auto dir = testing::makeWorkspace("shardrun");
  data::writeShard((dir / "train.bin").string(), syntheticTokens(20000, 3));
  data::writeShard((dir / "val.bin").string(), syntheticTokens(3000, 4));
  RunConfig config = testing::tinyConfig(dir);
  config.model.vocab_size = 64;
  config.data.kind = DataKind::shards;
  config.data.train = (dir / "train.bin").string();
  config.data.val = (dir / "val.bin").string();
  config.data.val_tokens = 33 * 40;  // 40 windows of seq_len + 1 = 33
  config.train.steps = 4;
  config.train.eval_every = 4;
  std::vector<double> losses;
  for (int64_t eval_batches : {1, 50}) {
    config.train.eval_batches = eval_batches;
    TrainerOptions options;
    options.workdir = (dir / ("work" + std::to_string(eval_batches))).string();
    const auto run = testing::runTiny(config, options);
    ASSERT_EQ(run.outcome.status, TrainStatus::kFinished);
    losses.push_back(run.outcome.final_loss);
  }
  EXPECT_EQ(losses[0], losses[1]);
  EXPECT_TRUE(std::isfinite(losses[0]));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace deepladder::trainers
