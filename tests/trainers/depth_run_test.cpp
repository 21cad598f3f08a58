// Depth architectures in the training loop on tiny runs: a growing run reports the
// growth event and FLOPs that sum its two phases (flopsAfterSteps), resuming from a checkpoint
// before or after the growth step reproduces the uninterrupted loss curve exactly, the logit lens
// is emitted at every eval with a zero last entry and matches a direct full-logits computation
// (chunked or not), and a looped model evaluates at K' != K with finite losses.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "core/architecture.h"
#include "core/errors.h"
#include "core/flop_model.h"
#include "tiny_run.h"
#include "trainers/eval_depth.h"
#include "trainers/gpt.h"
#include "trainers/logit_lens.h"
#include "trainers/lr_schedule.h"

namespace deepladder::trainers {
namespace {

using testing::Collected;
using testing::expectResumeAcrossGrowthReproducesTheCurve;
using testing::makeWorkspace;
using testing::runTiny;
using testing::tinyConfig;

RunConfig growingConfig(const std::filesystem::path& dir, const std::string& arm) {
  RunConfig c = tinyConfig(dir);
  c.model.n_layer = 3;
  applyArmPreset(arm, c.model);
  c.model.grow_fraction = 0.5;  // crossover after 5 of 10 updates
  c.model.rewarm_steps = 3;
  c.train.steps = 10;
  c.train.eval_every = 5;
  c.train.checkpoint_every = 3;
  c.train.keep_checkpoints = 10;
  return c;
}

TEST(DepthRun, GrowthEventAndFlopsFollowEachPhase) {
  const auto dir = makeWorkspace("growflops");
  for (const std::string arm : {"untied_grow", "loop_grow", "deep_vanilla_grow"}) {
    RunConfig config = growingConfig(dir, arm);
    TrainerOptions options;
    options.workdir = (dir / ("work-" + arm)).string();
    const auto run = runTiny(config, options);
    ASSERT_EQ(run.outcome.status, TrainStatus::kFinished) << arm;
    const auto events = run.all<protocol::Event>();
    ASSERT_EQ(events.size(), 1u) << arm;
    EXPECT_EQ(events[0].name, "growth");
    EXPECT_EQ(events[0].step, 5);
    EXPECT_EQ(events[0].detail, arm == "deep_vanilla_grow" ? "layers 4 -> 6" : "K 2 -> 4") << arm;
    const int64_t tokens_per_step = config.train.batch_size * config.model.seq_len;
    const double low = flopsPerToken(config.model, false) * tokens_per_step;
    const double high = flopsPerToken(config.model, true) * tokens_per_step;
    EXPECT_GT(high, low);
    for (const auto& m : run.all<protocol::Metric>()) {
      const double expected = m.step <= 5 ? low * m.step : low * 5 + high * (m.step - 5);
      EXPECT_DOUBLE_EQ(m.flops, expected) << arm << " step " << m.step;
      EXPECT_DOUBLE_EQ(m.flops, flopsAfterSteps(config.model, 10, m.step, tokens_per_step));
    }
    // The re-warm over 3 steps: the metric at step s is update s - 1; update 5 (the first after
    // growth) at 0, update 6 at 1/3 of the schedule's rate, update 8 at the full rate.
    const auto lr = run.curve("lr");
    EXPECT_EQ(lr.at(5), learningRate(config.train, 4));
    EXPECT_EQ(lr.at(6), 0.0);
    EXPECT_NEAR(lr.at(7), learningRate(config.train, 6) / 3.0, 1e-15);
    EXPECT_NEAR(lr.at(9), learningRate(config.train, 8), 1e-15);
    EXPECT_EQ(run.all<protocol::Hello>().at(0).params, countParameters(config.model).total);
  }
  std::filesystem::remove_all(dir);
}

TEST(DepthRun, ResumeBeforeAndAfterTheGrowthStepReproducesTheUninterruptedCurve) {
  const auto dir = makeWorkspace("growresume");
  const RunConfig config = growingConfig(dir, "untied_grow");
  expectResumeAcrossGrowthReproducesTheCurve(config, dir, [](int64_t stop_at, const Collected& r) {
    EXPECT_EQ(r.all<protocol::Event>().size(), stop_at == 4 ? 1u : 0u);  // growth again?
  });
  std::filesystem::remove_all(dir);
}

TEST(DepthRun, LensIsEmittedAtEveryEvalAndItsLastEntryIsZero) {
  const auto dir = makeWorkspace("lens");
  RunConfig config = growingConfig(dir, "untied_grow");
  config.train.checkpoint_every = 0;
  TrainerOptions options;
  options.workdir = (dir / "work").string();
  const auto run = runTiny(config, options);
  const auto lens = run.all<protocol::Lens>();
  ASSERT_EQ(lens.size(), 2u);  // evals at 5 and 10
  EXPECT_EQ(lens[0].step, 5);
  EXPECT_EQ(lens[0].kl.size(), static_cast<size_t>(executedBlocks(config.model, false) + 1));
  EXPECT_EQ(lens[1].kl.size(), static_cast<size_t>(executedBlocks(config.model, true) + 1));
  for (const auto& l : lens) {
    EXPECT_NEAR(l.kl.back(), 0.0, 1e-6);
    for (double kl : l.kl) EXPECT_TRUE(std::isfinite(kl) && kl >= -1e-6);
    EXPECT_GT(l.kl.front(), 0.0);
  }
  EXPECT_EQ(run.curve("lens/cost_steps").size(), 2u);
  std::filesystem::remove_all(dir);
}

TEST(LogitLens, ChunkedKlMatchesADirectFullLogitsComputation) {
  torch::manual_seed(4);
  ModelConfig m;
  m.vocab_size = 50;
  m.d_model = 16;
  m.n_head = 2;
  m.n_layer = 4;
  m.seq_len = 8;
  applyArmPreset("loop_2", m);
  GPT model(m);
  const auto idx = torch::randint(0, m.vocab_size, {3, 8}, torch::kInt64);
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> residuals;
  model->forward(idx, &residuals);
  std::vector<double> whole, chunked;
  EXPECT_EQ(addLensKl(*model, residuals, whole), 24);
  addLensKl(*model, residuals, chunked, /*chunk_rows=*/7);
  const auto logp = torch::log_softmax(model->decode(residuals.back()), -1).to(torch::kFloat64);
  ASSERT_EQ(whole.size(), residuals.size());
  for (size_t l = 0; l < residuals.size(); ++l) {
    const auto logq = torch::log_softmax(model->decode(residuals[l]), -1).to(torch::kFloat64);
    const double direct = (logp.exp() * (logp - logq)).sum().item<double>();
    EXPECT_NEAR(whole[l], direct, 1e-4 * (1 + std::abs(direct))) << l;
    EXPECT_NEAR(chunked[l], whole[l], 1e-4 * (1 + std::abs(direct))) << l;
  }
  EXPECT_EQ(whole.back(), 0.0);
}

TEST(DepthRun, LoopedModelEvaluatesAtOtherPassCountsWithFiniteLosses) {
  const auto dir = makeWorkspace("passes");
  RunConfig config = tinyConfig(dir);
  config.model.n_layer = 3;
  applyArmPreset("loop_2", config.model);
  config.train.steps = 6;
  config.train.checkpoint_every = 0;
  TrainerOptions options;
  options.workdir = (dir / "work").string();
  ASSERT_EQ(runTiny(config, options).outcome.status, TrainStatus::kFinished);
  std::vector<protocol::Message> messages;
  runPassesEvaluation(config, options, parsePassesList("1..8"),
                      [&](const protocol::Message& m) { messages.push_back(m); });
  std::vector<int64_t> steps;
  for (const auto& m : messages)
    if (const auto* metric = std::get_if<protocol::Metric>(&m)) {
      steps.push_back(metric->step);
      ASSERT_EQ(metric->values.size(), 1u);
      EXPECT_EQ(metric->values[0].first, "val/loss@passes");
      EXPECT_TRUE(std::isfinite(metric->values[0].second));
      EXPECT_EQ(metric->tokens, 6 * config.train.batch_size * config.model.seq_len);
    }
  EXPECT_EQ(steps, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  ASSERT_TRUE(std::holds_alternative<protocol::Done>(messages.back()));
  EXPECT_EQ(parsePassesList("1,4,2"), (std::vector<int64_t>{1, 2, 4}));
  EXPECT_THROW(parsePassesList("0..3"), UserError);
  EXPECT_THROW(parsePassesList("a"), UserError);
  RunConfig vanilla = tinyConfig(dir);
  EXPECT_THROW(runPassesEvaluation(vanilla, options, {1, 2}, [](const protocol::Message&) {}),
               UserError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace deepladder::trainers
