// Micro-batches (trainers/micro_batches.h, train.micro_batch): gradients accumulated over
// micro-batches equal one forward over the batch (fp32, 1e-6 relative), at every step of a run
// that grows mid-run; whole training runs with micro_batch B/4 log the same losses, tokens and
// FLOPs per step and end on the same parameters up to rounding. The 2-rank version is in
// data_parallel_test.cpp. Reference: the same run with one forward per step.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <string>

#include "core/architecture.h"
#include "tiny_run.h"
#include "trainers/gpt.h"
#include "trainers/growth.h"
#include "trainers/micro_batches.h"
#include "trainers/run_optimizer.h"

namespace deepladder::trainers {
namespace {

// name -> tensor of every model parameter in the newest checkpoint the run reported.
std::map<std::string, torch::Tensor> finalParameters(const testing::Collected& run) {
  const auto checkpoints = run.all<protocol::Checkpoint>();
  EXPECT_FALSE(checkpoints.empty());
  std::map<std::string, torch::Tensor> out;
  if (checkpoints.empty()) return out;
  torch::serialize::InputArchive archive;
  archive.load_from(checkpoints.back().path);
  for (const std::string& key : archive.keys()) {
    if (key.rfind("model.", 0) != 0) continue;
    torch::Tensor t;
    archive.read(key, t, /*is_buffer=*/true);
    out[key.substr(6)] = t;
  }
  return out;
}

// max over parameters of max |a - b| / max |a|.
double maxRelativeDifference(const std::map<std::string, torch::Tensor>& a,
                             const std::map<std::string, torch::Tensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (const auto& [name, t] : a) {
    const auto other = b.find(name);
    if (other == b.end()) {
      ADD_FAILURE() << "parameter " << name << " missing";
      continue;
    }
    const double scale = t.abs().max().item<double>();
    worst =
        std::max(worst, (t - other->second).abs().max().item<double>() / std::max(scale, 1e-30));
  }
  return worst;
}

// ||a - b|| / ||a|| over all parameters together.
double l2RelativeDifference(const std::map<std::string, torch::Tensor>& a,
                            const std::map<std::string, torch::Tensor>& b) {
  double diff = 0, norm = 0;
  for (const auto& [name, t] : a) {
    if (!b.count(name)) continue;
    diff += (t - b.at(name)).pow(2).sum().item<double>();
    norm += t.pow(2).sum().item<double>();
  }
  return std::sqrt(diff / norm);
}

TEST(MicroBatches, SplitRowsInOrderWithAShorterLastPart) {
  const auto rows = torch::arange(10).view({5, 2});
  EXPECT_EQ(splitRows(rows, 0).size(), 1u);
  EXPECT_EQ(splitRows(rows, 5).size(), 1u);
  const auto parts = splitRows(rows, 2);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].size(0), 2);
  EXPECT_EQ(parts[2].size(0), 1);
  EXPECT_EQ(parts[2][0][0].item<int64_t>(), 8);
}

TEST(MicroBatches, AccumulatedGradientsEqualOneForwardOverTheBatch) {
  ModelConfig m;
  m.vocab_size = 64;
  m.d_model = 16;
  m.n_head = 2;
  m.n_layer = 3;
  m.seq_len = 10;
  torch::manual_seed(3);
  const torch::Tensor rows = torch::randint(0, 64, {6, 11}, torch::kInt64);
  std::vector<std::vector<torch::Tensor>> grads;
  std::vector<double> losses;
  for (int64_t micro : {0, 3, 2, 4}) {  // 4: parts of 4 and 2 rows, weighted by their share
    torch::manual_seed(5);
    GPT gpt(m);
    losses.push_back(accumulateGradients(gpt, rows, ForwardOptions{micro}));
    grads.emplace_back();
    for (const auto& p : gpt->parameters()) grads.back().push_back(p.grad().clone());
  }
  for (size_t run = 1; run < grads.size(); ++run) {
    EXPECT_NEAR(losses[run], losses[0], 1e-6 * losses[0]) << run;
    for (size_t i = 0; i < grads[0].size(); ++i) {
      const double scale = grads[0][i].abs().max().item<double>();
      EXPECT_LE((grads[run][i] - grads[0][i]).abs().max().item<double>(), 1e-6 * scale)
          << "micro-batch variant " << run << ", parameter " << i;
    }
  }
}

// Accumulation equivalence with growth mid-run: a growing model (untied_grow, K 2 -> 4 at step
// 10) trained 20 AdamW steps on whole batches; at every step a replica holding the same weights
// (grown with it) computes the gradient in micro-batches of 2 rows. Every gradient matches the
// whole batch's to 1e-6 of its largest entry (fp32 rounding of the different summation order).
TEST(MicroBatches, AccumulatedGradientsMatchEveryStepOfAGrowingRun) {
  ModelConfig m;
  m.vocab_size = 64;
  m.d_model = 16;
  m.n_head = 2;
  m.n_layer = 3;
  m.seq_len = 12;
  applyArmPreset("untied_grow", m);
  TrainConfig t;
  t.batch_size = 8;
  t.steps = 20;
  t.lr = 3e-3;
  t.warmup_steps = 2;
  torch::manual_seed(1);
  GPT whole(m);
  GPT micro(m);
  auto optimizer = RunOptimizer::create(t, whole);
  double worst = 0;
  for (int64_t step = 0; step < t.steps; ++step) {
    if (step == 10) {
      optimizer->grow(whole);
      micro->grow();
    }
    {
      torch::NoGradGuard no_grad;
      auto target = micro->parameters();
      auto source = whole->parameters();
      ASSERT_EQ(target.size(), source.size());
      for (size_t i = 0; i < source.size(); ++i) target[i].copy_(source[i]);
    }
    const torch::Tensor rows = torch::randint(0, 64, {t.batch_size, m.seq_len + 1}, torch::kInt64);
    for (auto& p : micro->parameters()) p.mutable_grad() = torch::Tensor();
    const double a = accumulateGradients(whole, rows, ForwardOptions{0});
    const double b = accumulateGradients(micro, rows, ForwardOptions{2});
    EXPECT_NEAR(b, a, 1e-6 * a) << "step " << step;
    const auto ga = whole->parameters(), gb = micro->parameters();
    for (size_t i = 0; i < ga.size(); ++i) {
      const double scale = ga[i].grad().abs().max().item<double>();
      const double rel = (gb[i].grad() - ga[i].grad()).abs().max().item<double>() / scale;
      worst = std::max(worst, rel);
      EXPECT_LE(rel, 1e-6) << "step " << step << ", parameter " << i;
    }
    optimizer->step(step, rewarmFactor(m, t.steps, step));
    optimizer->zeroGrad();
  }
  std::cout << "[ figure ] accumulated vs whole-batch gradients, 20 steps with growth: max "
               "relative difference "
            << worst << "\n";
}

// Whole training runs (the trainer's loop, 20 AdamW steps, growth at 10): micro-batches of B/4
// log the same losses, tokens and FLOPs and end on the same parameters up to the fp32 rounding
// that Adam's normalized updates carry forward (the figure the closing note reports).
TEST(MicroBatches, QuarterMicroBatchesTrainLikeTheWholeBatchAcrossGrowth) {
  const auto dir = testing::makeWorkspace("micro-batch");
  RunConfig c = testing::tinyConfig(dir);
  c.model.n_layer = 3;
  applyArmPreset("untied_grow", c.model);
  c.model.grow_fraction = 0.5;
  c.model.rewarm_steps = 3;
  c.train.steps = 20;
  c.train.eval_every = 20;
  c.train.checkpoint_every = 0;
  TrainerOptions whole_options;
  whole_options.workdir = (dir / "whole").string();
  const auto whole = testing::runTiny(c, whole_options);
  c.train.micro_batch = c.train.batch_size / 4;
  TrainerOptions micro_options;
  micro_options.workdir = (dir / "micro").string();
  const auto micro = testing::runTiny(c, micro_options);
  ASSERT_EQ(whole.outcome.status, TrainStatus::kFinished);
  ASSERT_EQ(micro.outcome.status, TrainStatus::kFinished);
  EXPECT_EQ(micro.all<protocol::Event>().size(), whole.all<protocol::Event>().size());  // growth

  const auto a = finalParameters(whole), b = finalParameters(micro);
  const double rel = maxRelativeDifference(a, b);
  std::cout << "[ figure ] micro_batch B/4 vs B, 20 steps with growth at 10 (fp32): max relative "
               "parameter difference "
            << rel << " (per tensor max |a - b| / max |a|), " << l2RelativeDifference(a, b)
            << " (||a - b|| / ||a|| over all)\n";
  EXPECT_LE(l2RelativeDifference(a, b), 1e-6);
  EXPECT_LE(rel, 1e-4);  // a wrong gradient scale would be off by far more
  const auto la = whole.curve("train/loss"), lb = micro.curve("train/loss");
  ASSERT_EQ(la.size(), lb.size());
  for (const auto& [step, loss] : la) EXPECT_NEAR(lb.at(step), loss, 1e-5 * loss) << step;
  const auto wm = whole.all<protocol::Metric>(), mm = micro.all<protocol::Metric>();
  ASSERT_EQ(wm.size(), mm.size());
  for (size_t i = 0; i < wm.size(); ++i) {
    EXPECT_EQ(wm[i].tokens, mm[i].tokens);
    EXPECT_EQ(wm[i].flops, mm[i].flops);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace deepladder::trainers
