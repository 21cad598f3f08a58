// Tests of the serial task's training loop and scoring (trainers/squaring): exact match on
// constructed predictions, per-cell Eval rows, a tiny E1 run that emits the documented metrics
// and Eval rows (and the iteration sweep for a looped core), and refusals of bad configs.
#include "trainers/squaring/squaring_trainer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <set>
#include <variant>

#include "core/errors.h"
#include "core/squaring/dataset.h"
#include "core/squaring/tiers.h"
#include "trainers/squaring/squaring_eval.h"

namespace deepladder::trainers::squaring {
namespace {

RunConfig tinySquaringRun(const std::string& arch) {
  RunConfig c;
  c.task = "squaring";
  c.model.vocab_size = 17;
  c.model.d_model = 32;
  c.model.n_head = 4;
  c.model.n_layer = arch == "pcc" ? 3 : 1;  // pcc: prelude / core / coda, one block each
  c.model.seq_len = 13;
  c.model.positions = "learned";
  c.model.attention = "bidirectional";
  c.model.arch = arch;
  c.model.core_mode = "tied";
  c.model.passes = 2;
  c.train.steps = 4;
  c.train.batch_size = 32;
  c.train.warmup_steps = 1;
  c.train.eval_every = 2;
  c.train.threads = 1;
  c.squaring.tier = "E1";
  if (arch == "pcc") {
    c.squaring.iterations = "poisson_lognormal";
    c.squaring.mean_iterations = 2.5;
    c.squaring.backprop_last = 2;
    c.squaring.progressive_weight = 0.5;
    c.squaring.eval_passes = "1,3";
  }
  return c;
}

struct Collected {
  std::vector<protocol::Metric> metrics;
  std::vector<protocol::Eval> evals;
  int done = 0, checkpoints = 0;
};

Collected runTiny(const RunConfig& config, const std::string& name) {
  Collected out;
  TrainerOptions options;
  options.run_id = name;
  options.workdir =
      (std::filesystem::temp_directory_path() / ("deepladder-sqtrain-" + name)).string();
  runSquaringTraining(config, options, [&](const protocol::Message& m) {
    if (auto* metric = std::get_if<protocol::Metric>(&m)) out.metrics.push_back(*metric);
    if (auto* eval = std::get_if<protocol::Eval>(&m)) out.evals.push_back(*eval);
    if (std::holds_alternative<protocol::Done>(m)) ++out.done;
    if (std::holds_alternative<protocol::Checkpoint>(m)) ++out.checkpoints;
  });
  std::filesystem::remove_all(options.workdir);
  return out;
}

bool hasValue(const Collected& c, const std::string& key) {
  for (const auto& m : c.metrics)
    for (const auto& [k, v] : m.values)
      if (k == key) return true;
  return false;
}

TEST(SquaringScoring, ExactMatchOnConstructedPredictions) {
  const auto examples = sq::generateTierDataset(sq::tierPreset("E1"), 0).test;
  const std::vector<sq::Example> three(examples.begin(), examples.begin() + 3);
  const EncodedSet set = encodeSet(three, sq::Layout::kSeparate, 13, torch::kCPU);
  // Logits that put all mass on the targets: every example right.
  auto targets = set.targets.clone();
  auto logits = torch::zeros({3, 13, 17});
  const auto answer = targets.ne(sq::kIgnoreTarget);
  logits.scatter_(2, targets.clamp_min(0).unsqueeze(-1), answer.unsqueeze(-1).to(torch::kFloat32));
  auto predicted = logits.argmax(-1).to(torch::kInt32).contiguous();
  const int32_t* p = predicted.data_ptr<int32_t>();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(sq::exactMatchSeparateRow(p + i * 13, 13, three[i]));
  // One wrong digit in row 1 breaks only row 1.
  predicted[1][12] = sq::kDigitZero + (predicted[1][12].item<int32_t>() - sq::kDigitZero + 1) % 10;
  p = predicted.data_ptr<int32_t>();
  EXPECT_TRUE(sq::exactMatchSeparateRow(p, 13, three[0]));
  EXPECT_FALSE(sq::exactMatchSeparateRow(p + 13, 13, three[1]));
  EXPECT_DOUBLE_EQ(fractionCorrect({1, 0, 1, 1}), 0.75);

  const auto evals = cellEvals(7, "squaring/test", three, {1, 0, 1});
  int64_t correct = 0, total = 0;
  for (const auto& e : evals) {
    EXPECT_EQ(e.step, 7);
    EXPECT_EQ(e.n_bits, 9);  // 323 has 9 bits
    correct += e.correct;
    total += e.total;
  }
  EXPECT_EQ(correct, 2);
  EXPECT_EQ(total, 3);
}

TEST(SquaringTrainer, TinyBaselineRunEmitsMetricsAndEvals) {
  const Collected c = runTiny(tinySquaringRun("vanilla"), "baseline");
  EXPECT_EQ(c.done, 1);
  EXPECT_EQ(c.checkpoints, 1);
  for (const char* key : {"train/loss", "val/loss", "train/exact", "test/exact", "ood/exact",
                          "depth/max_t_seen", "depth/max_t_unseen"})
    EXPECT_TRUE(hasValue(c, key)) << key;
  std::set<std::string> tasks;
  std::set<int64_t> steps;
  int64_t depth_total = 0;
  for (const auto& e : c.evals) {
    tasks.insert(e.task);
    steps.insert(e.step);
    if (e.task == "squaring/depth" && e.step == 4) depth_total += e.total;
  }
  EXPECT_EQ(tasks, (std::set<std::string>{"squaring/test", "squaring/ood_t", "squaring/depth"}));
  EXPECT_EQ(steps, (std::set<int64_t>{2, 4}));
  const auto data = sq::generateTierDataset(sq::tierPreset("E1"), 0);
  EXPECT_EQ(depth_total, static_cast<int64_t>(data.depth_seen.size() + data.depth_ood_n.size()));
}

TEST(SquaringTrainer, TinyLoopedRunSweepsIterations) {
  const Collected c = runTiny(tinySquaringRun("pcc"), "looped");
  EXPECT_EQ(c.done, 1);
  std::set<std::string> tasks;
  for (const auto& e : c.evals) tasks.insert(e.task);
  for (const char* task :
       {"squaring/test@r=1", "squaring/test@r=3", "squaring/ood_t@r=3", "squaring/depth@r=1"})
    EXPECT_TRUE(tasks.count(task)) << task;
  EXPECT_TRUE(hasValue(c, "iterations"));
}

TEST(SquaringTrainer, RefusesBadConfigs) {
  RunConfig c = tinySquaringRun("vanilla");
  c.model.seq_len = 8;
  EXPECT_THROW(checkSquaringConfig(c), UserError);
  c = tinySquaringRun("vanilla");
  c.squaring.iterations = "poisson_lognormal";
  EXPECT_THROW(checkSquaringConfig(c), UserError);  // recipes need a looped core
  c = tinySquaringRun("vanilla");
  c.model.vocab_size = 256;
  EXPECT_THROW(checkSquaringConfig(c), UserError);
  c = tinySquaringRun("vanilla");
  c.model.positions = "rope";
  EXPECT_THROW(checkSquaringConfig(c), UserError);
  EXPECT_EQ(requiredSeqLen(c.squaring), 13);
  EXPECT_NO_THROW(checkSquaringConfig(tinySquaringRun("pcc")));
}

}  // namespace
}  // namespace deepladder::trainers::squaring
