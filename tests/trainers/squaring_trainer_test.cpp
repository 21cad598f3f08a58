// Tests of the serial task's training loop and scoring (trainers/squaring): exact match on
// constructed predictions, per-cell Eval rows, a tiny E1 run that emits the documented metrics
// and Eval rows (and the iteration sweep for a looped core), refusals of bad configs, and resuming
// from a checkpoint with the uninterrupted run's losses.
#include "trainers/squaring/squaring_trainer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <variant>

#include "core/errors.h"
#include "core/options/validate.h"
#include "core/sha256.h"
#include "core/squaring/dataset.h"
#include "core/squaring/tiers.h"
#include "trainers/checkpoint.h"
#include "trainers/squaring/squaring_eval.h"

namespace deepladder::trainers::squaring {
namespace {

RunConfig tinySquaringRun(const std::string& arch) {
  RunConfig c;
  c.task = Task::squaring;
  c.model.vocab_size = 17;
  c.model.d_model = 32;
  c.model.n_head = 4;
  c.model.n_layer = arch == "pcc" ? 3 : 1;  // pcc: prelude / core / coda, one block each
  c.model.seq_len = 13;
  c.model.positions = Positions::learned;
  c.model.attention = AttentionMask::bidirectional;
  c.model.arch = *enumFromName<Arch>(arch);
  c.model.core_mode = CoreMode::tied;
  c.model.passes = 2;
  c.train.steps = 4;
  c.train.batch_size = 32;
  c.train.warmup_steps = 1;
  c.train.eval_every = 2;
  c.train.threads = 1;
  c.squaring.tier = "E1";
  if (arch == "pcc") {
    c.squaring.iterations = IterationRule::poisson_lognormal;
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
  const EncodedSet set = encodeSet(three, SquaringLayout::separate, 13, torch::kCPU);
  // Logits that put all mass on the targets: every example right.
  auto targets = set.targets.clone();
  auto logits = torch::zeros({3, 13, 17});
  const auto answer = targets.ne(sq::kIgnoreTarget);
  logits.scatter_(2, targets.clamp_min(0).unsqueeze(-1), answer.unsqueeze(-1).to(torch::kFloat32));
  auto predicted = logits.argmax(-1).to(torch::kInt32).contiguous();
  const int32_t* p = predicted.data_ptr<int32_t>();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(sq::exactMatchSeparateRow(p + i * 13, 13, three[i]));
  // One wrong digit in row 1 (its last answer position, left-aligned) breaks only row 1.
  const int64_t last = set.targets[1].ne(sq::kIgnoreTarget).nonzero().max().item<int64_t>();
  predicted[1][last] =
      sq::kDigitZero + (predicted[1][last].item<int32_t>() - sq::kDigitZero + 1) % 10;
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
                          "score", "depth/max_t_seen", "depth/max_t_unseen"})
    EXPECT_TRUE(hasValue(c, key)) << key;
  for (const auto& m : c.metrics) {
    std::map<std::string, double> v(m.values.begin(), m.values.end());
    if (v.count("score")) {  // the benchmark's score: the mean of test and OOD exact
      EXPECT_DOUBLE_EQ(v["score"], (v["test/exact"] + v["ood/exact"]) / 2);
    }
    if (v.count("train/loss")) {  // each log line's throughput (the progress line's tok/s)
      EXPECT_GT(v["tokens_per_s"], 0.0) << "step " << m.step;
    }
  }
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

// A run in `workdir` (kept), stopped after `max_steps` like a killed worker when >= 0.
struct Messages {
  std::vector<protocol::Message> all;
  TrainOutcome outcome;
  std::map<int64_t, double> curve(const std::string& key) const {
    std::map<int64_t, double> out;
    for (const auto& m : all)
      if (const auto* metric = std::get_if<protocol::Metric>(&m))
        for (const auto& [k, v] : metric->values)
          if (k == key) out[metric->step] = v;
    return out;
  }
  template <typename T>
  std::vector<T> of() const {
    std::vector<T> out;
    for (const auto& m : all)
      if (const T* t = std::get_if<T>(&m)) out.push_back(*t);
    return out;
  }
};

Messages runIn(const RunConfig& config, const std::filesystem::path& workdir, bool resume,
               int64_t max_steps = -1) {
  Messages out;
  TrainerOptions options;
  options.workdir = workdir.string();
  options.resume = resume;
  options.max_steps = max_steps;
  out.outcome = runSquaringTraining(config, options,
                                    [&](const protocol::Message& m) { out.all.push_back(m); });
  return out;
}

// The looped recipe uses every random draw the trainer makes (row order across an epoch boundary,
// Poisson-lognormal iterations, the progressive loss's n and k): 691 training rows, batch 64, so
// epoch 2 starts inside step 11, after the resume at step 5.
class SquaringResume : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("deepladder-sqresume-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    config = tinySquaringRun("pcc");
    config.train.steps = 16;
    config.train.batch_size = 64;
    config.train.eval_every = 8;
    config.train.checkpoint_every = 5;
    config.train.keep_checkpoints = 2;
    reference = runIn(config, dir / "uninterrupted", false);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  std::filesystem::path dir;
  RunConfig config;
  Messages reference;
};

TEST_F(SquaringResume, ResumingAtStep5ReproducesTheUninterruptedRun) {
  const auto first = runIn(config, dir / "interrupted", false, /*max_steps=*/8);
  ASSERT_EQ(first.outcome.status, TrainStatus::kStopped);
  ASSERT_TRUE(first.of<protocol::Done>().empty());
  const auto resumed = runIn(config, dir / "interrupted", true);
  ASSERT_EQ(resumed.of<protocol::Hello>().at(0).resumed_from, 5);  // the newest checkpoint

  const auto expected = reference.curve("train/loss");
  const auto got = resumed.curve("train/loss");
  ASSERT_EQ(got.size(), 11u);  // steps 6..16
  for (const auto& [step, loss] : got) {
    ASSERT_TRUE(expected.count(step)) << "step " << step;
    EXPECT_NEAR(loss, expected.at(step), 1e-5 * std::abs(expected.at(step))) << "step " << step;
  }
  EXPECT_EQ(resumed.curve("iterations"), [&] {
    auto all = reference.curve("iterations");
    for (auto it = all.begin(); it != all.end();)
      it = it->first <= 5 ? all.erase(it) : std::next(it);
    return all;
  }());
  for (const char* key : {"val/loss", "test/exact", "ood/exact"})
    EXPECT_NEAR(resumed.curve(key).at(16), reference.curve(key).at(16), 1e-5) << key;
  const auto done = resumed.of<protocol::Done>();
  ASSERT_EQ(done.size(), 1u);
  const auto reference_done = reference.of<protocol::Done>().at(0);
  EXPECT_EQ(done[0].steps, 16);
  EXPECT_EQ(done[0].tokens, reference_done.tokens);
  EXPECT_DOUBLE_EQ(done[0].flops, reference_done.flops);
}

// The run skeleton and the optimizer setup are the LM trainer's: Muon's group state (momenta,
// AdamW moments of the embedding, positions and gains) is checkpointed and restored too.
TEST_F(SquaringResume, WithMuonResumingReproducesTheUninterruptedRun) {
  config.train.optimizer = OptimizerKind::muon;
  config.train.lr = 0.02;
  config.train.embed_lr = 0.01;
  const auto uninterrupted = runIn(config, dir / "muon-uninterrupted", false);
  ASSERT_EQ(runIn(config, dir / "muon", false, /*max_steps=*/7).outcome.status,
            TrainStatus::kStopped);
  const auto resumed = runIn(config, dir / "muon", true);
  ASSERT_EQ(resumed.of<protocol::Hello>().at(0).resumed_from, 5);
  const auto expected = uninterrupted.curve("train/loss");
  const auto got = resumed.curve("train/loss");
  ASSERT_EQ(got.size(), 11u);  // steps 6..16
  for (const auto& [step, loss] : got)
    EXPECT_NEAR(loss, expected.at(step), 1e-5 * std::abs(expected.at(step))) << "step " << step;
  EXPECT_NEAR(resumed.outcome.final_loss, uninterrupted.outcome.final_loss, 1e-5);
}

TEST_F(SquaringResume, CorruptNewestCheckpointFallsBackAndEveryChecksumMatches) {
  // The uninterrupted run (checkpoints at 5, 10, 15 and the end) kept the newest two, each
  // matching its checksum.
  const auto saved = listCheckpoints((dir / "uninterrupted").string());
  ASSERT_EQ(saved.size(), 2u);
  EXPECT_EQ(saved[0].step, 16);
  EXPECT_EQ(saved[1].step, 15);
  for (const auto& c : reference.of<protocol::Checkpoint>()) {
    if (!std::filesystem::exists(c.path)) continue;  // pruned
    EXPECT_EQ(sha256File(c.path), c.sha256) << c.path;
  }

  const auto workdir = dir / "corrupt";
  ASSERT_EQ(runIn(config, workdir, false, /*max_steps=*/12).outcome.status, TrainStatus::kStopped);
  std::fstream(checkpointPath(workdir.string(), 10),
               std::ios::in | std::ios::out | std::ios::binary)
      .write("garbage", 7);
  const auto resumed = runIn(config, workdir, true);
  EXPECT_EQ(resumed.of<protocol::Hello>().at(0).resumed_from, 5);
  bool skipped = false;
  for (const auto& e : resumed.of<protocol::Event>()) skipped |= e.name == "checkpoint_skipped";
  EXPECT_TRUE(skipped);
  EXPECT_NEAR(resumed.curve("train/loss").at(16), reference.curve("train/loss").at(16),
              1e-5 * std::abs(reference.curve("train/loss").at(16)));
}

TEST(SquaringTrainer, PerTRunsPassesTimesTIterationsForEachExample) {
  RunConfig c = tinySquaringRun("pcc");
  c.squaring.iterations = IterationRule::per_t;
  c.squaring.progressive_weight = 0;
  c.squaring.backprop_last = 0;
  torch::manual_seed(3);
  SquaringModel model(c.model, 13);
  model->eval();
  const auto data = sq::generateTierDataset(sq::tierPreset("E1"), 0);
  const EncodedSet set = encodeSet(data.test, SquaringLayout::separate, 13, torch::kCPU);
  // Scores and loss per T group must equal scoring that group alone at r = passes x T.
  const auto per_t = scoreExactMatchPerT(model, set, /*per_t=*/2);
  double weighted_loss = 0, targets = 0;
  for (const auto& [t, rows] : rowsByT(set)) {
    std::vector<sq::Example> group;
    for (int64_t row : rows) group.push_back(data.test[static_cast<size_t>(row)]);
    const EncodedSet alone = encodeSet(group, SquaringLayout::separate, 13, torch::kCPU);
    const auto ok = scoreExactMatch(model, alone, 2 * t);
    for (size_t i = 0; i < rows.size(); ++i)
      EXPECT_EQ(per_t[static_cast<size_t>(rows[i])], ok[i]) << "T " << t << " row " << rows[i];
    const double n = alone.targets.ne(sq::kIgnoreTarget).sum().item<double>();
    weighted_loss += n * setLoss(model, alone, 2 * t);
    targets += n;
  }
  EXPECT_NEAR(setLossPerT(model, set, 2), weighted_loss / targets, 1e-6);

  // A run (passes 1, one evaluation: the depth ladder runs up to r = 64): the logged iterations
  // are the batch's mean passes x T (E1: T in 1..3).
  c.model.passes = 1;
  c.train.eval_every = 4;
  const Collected run = runTiny(c, "per-t");
  EXPECT_EQ(run.done, 1);
  for (const auto& m : run.metrics)
    for (const auto& [k, v] : m.values)
      if (k == "iterations") {
        EXPECT_GE(v, 1.0);
        EXPECT_LE(v, 3.0);
      }
  c.squaring.progressive_weight = 0.5;
  EXPECT_THROW(options::validateRunConfig(c, "test"),
               UserError);  // progressive draws its own counts
}

TEST(SquaringTrainer, RefusesBadConfigs) {
  RunConfig c = tinySquaringRun("vanilla");
  c.model.seq_len = 8;
  EXPECT_THROW(options::validateRunConfig(c, "test"), UserError);
  c = tinySquaringRun("vanilla");
  c.squaring.iterations = IterationRule::poisson_lognormal;
  EXPECT_THROW(options::validateRunConfig(c, "test"), UserError);  // recipes need a looped core
  c = tinySquaringRun("vanilla");
  c.model.vocab_size = 256;
  EXPECT_THROW(options::validateRunConfig(c, "test"), UserError);
  c = tinySquaringRun("vanilla");
  c.model.positions = Positions::rope;
  EXPECT_THROW(options::validateRunConfig(c, "test"), UserError);
  EXPECT_EQ(options::squaringSeqLenNeeded(c.squaring), 13);
  EXPECT_NO_THROW(options::validateRunConfig(tinySquaringRun("pcc"), "test"));
}

}  // namespace
}  // namespace deepladder::trainers::squaring
