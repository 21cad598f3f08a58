// The training loop on a tiny model and a generated text: validation loss falls, every metric's
// FLOPs equal tokens x flopsPerToken, and a NaN/Inf loss ends the run as "diverged" without a
// crash. Also AdamW's update against a hand computation, and gradient clipping.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "core/errors.h"
#include "core/flop_model.h"
#include "core/options/validate.h"
#include "core/run_status.h"
#include "tiny_run.h"
#include "trainers/adamw.h"

namespace deepladder::trainers {
namespace {

using testing::makeWorkspace;
using testing::runTiny;
using testing::tinyConfig;

TEST(Trainer, ValidationLossFallsOnATinyRun) {
  const auto dir = makeWorkspace("falls");
  RunConfig config = tinyConfig(dir);
  config.train.steps = 60;
  config.train.eval_every = 20;
  config.train.checkpoint_every = 0;
  TrainerOptions options;
  options.workdir = (dir / "work").string();
  const auto run = runTiny(config, options);
  const auto val = run.curve("val/loss");
  ASSERT_EQ(val.size(), 3u);
  EXPECT_LT(val.at(60), val.at(20) - 0.1);
  EXPECT_LT(val.at(60), 3.0);  // uniform over 256 bytes would be 5.55
  const auto done = run.all<protocol::Done>();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, RunStatus::kFinished);
  EXPECT_DOUBLE_EQ(done[0].final_loss, val.at(60));
  EXPECT_EQ(done[0].steps, 60);
  ASSERT_FALSE(run.all<protocol::Hello>().empty());
  EXPECT_EQ(run.all<protocol::Hello>()[0].params, countParameters(config.model).total);
  std::filesystem::remove_all(dir);
}

TEST(Trainer, EveryMetricCarriesTokensAndFlopsSoFar) {
  const auto dir = makeWorkspace("flops");
  RunConfig config = tinyConfig(dir);
  config.train.steps = 6;
  config.train.log_every = 2;
  config.train.eval_every = 3;
  config.train.checkpoint_every = 0;
  TrainerOptions options;
  options.workdir = (dir / "work").string();
  const auto run = runTiny(config, options);
  const double per_token = flopsPerToken(config.model);
  const auto metrics = run.all<protocol::Metric>();
  ASSERT_EQ(metrics.size(), 3u + 2u + 1u);  // train at 2,4,6; val at 3,6; peak memory at the end
  for (const auto& m : metrics) {
    EXPECT_EQ(m.tokens, m.step * config.train.batch_size * config.model.seq_len);
    EXPECT_DOUBLE_EQ(m.flops, static_cast<double>(m.tokens) * per_token);
    EXPECT_GT(m.wall_s, 0.0);
  }
  const auto train = run.curve("train/loss");
  EXPECT_EQ(train.size(), 3u);
  EXPECT_EQ(run.curve("lr").size(), 3u);
  EXPECT_EQ(run.curve("grad_norm").size(), 3u);
  EXPECT_EQ(run.curve("tokens_per_s").size(), 3u);
  // The process's peak RSS on the CPU: on every progress line and once more at the end, never
  // falling, and at least the model's float32 weights.
  std::vector<double> peak;
  for (const auto& m : metrics)
    for (const auto& [key, value] : m.values)
      if (key == "peak_memory_gb") peak.push_back(value);
  ASSERT_EQ(peak.size(), 4u);
  const double weights_gb = 4.0 * static_cast<double>(countParameters(config.model).total) / 1e9;
  for (size_t i = 0; i < peak.size(); ++i) {
    EXPECT_GT(peak[i], weights_gb);
    if (i > 0) {
      EXPECT_GE(peak[i], peak[i - 1]);
    }
  }
  EXPECT_EQ(run.all<protocol::Hello>().at(0).flops_per_token, per_token);
  std::filesystem::remove_all(dir);
}

TEST(Trainer, EvalAtValidatesAtTheFractionsWithoutChangingTheTraining) {
  const auto dir = makeWorkspace("eval-at");
  RunConfig config = tinyConfig(dir);
  config.train.steps = 20;
  config.train.eval_every = 10;
  config.train.checkpoint_every = 0;
  TrainerOptions plain;
  plain.workdir = (dir / "plain").string();
  const auto reference = runTiny(config, plain);
  config.train.eval_at = "0.25,0.5,0.9";  // steps 5, 10 (also an eval_every step), 18
  TrainerOptions with;
  with.workdir = (dir / "with").string();
  const auto run = runTiny(config, with);
  const auto val = run.curve("val/loss");
  EXPECT_EQ(val.size(), 4u);  // 5, 10, 18, 20
  for (const int64_t step : {5, 10, 18, 20}) EXPECT_TRUE(val.count(step)) << step;
  // Validation reads fixed batches and draws nothing: the training is bit-identical.
  EXPECT_EQ(run.curve("train/loss"), reference.curve("train/loss"));
  EXPECT_EQ(val.at(20), reference.curve("val/loss").at(20));
  EXPECT_EQ(run.all<protocol::Lens>().size(), reference.all<protocol::Lens>().size());
  std::filesystem::remove_all(dir);
}

TEST(Trainer, HugeLearningRateEndsAsDivergedNotACrash) {
  const auto dir = makeWorkspace("diverge");
  RunConfig config = tinyConfig(dir);
  config.train.lr = 1e30;  // beyond validate()'s range: trainers only assert (debug builds)
  config.train.warmup_steps = 0;
  config.train.grad_clip = 0;
  config.train.checkpoint_every = 0;
  TrainerOptions options;
  options.workdir = (dir / "work").string();
  testing::Collected run;
  ASSERT_NO_THROW(run = runTiny(config, options));
  EXPECT_EQ(run.outcome.status, TrainStatus::kDiverged);
  const auto done = run.all<protocol::Done>();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, RunStatus::kDiverged);
  EXPECT_NE(done[0].message.find("at step"), std::string::npos) << done[0].message;
  EXPECT_NE(done[0].message.find("lr"), std::string::npos) << done[0].message;
  EXPECT_LT(done[0].steps, config.train.steps);
  std::filesystem::remove_all(dir);
}

TEST(AdamW, FirstStepMatchesTheClosedFormAndDecaysOnlyMatrices) {
  auto matrix = torch::full({2, 2}, 1.0).requires_grad_(true);
  auto gain = torch::full({2}, 1.0).requires_grad_(true);
  AdamWOptions options;
  options.weight_decay = 0.5;
  AdamW optimizer({matrix, gain}, options);
  (matrix.sum() * 3.0 + gain.sum() * -2.0).backward();
  optimizer.step(/*lr=*/0.1);
  // First Adam step moves each element by -lr * sign(g) (bias-corrected m/sqrt(v) = g/|g|);
  // decay multiplies matrices by (1 - lr wd) first.
  EXPECT_NEAR(matrix[0][0].item<double>(), 1.0 * (1 - 0.05) - 0.1, 1e-6);
  EXPECT_NEAR(gain[0].item<double>(), 1.0 + 0.1, 1e-6);
  EXPECT_EQ(optimizer.stepCount(), 1);
}

TEST(AdamW, ClipGradNormScalesToTheLimitAndReportsTheNormBefore) {
  auto a = torch::zeros({3}).requires_grad_(true);
  auto b = torch::zeros({4}).requires_grad_(true);
  a.mutable_grad() = torch::tensor({3.0f, 0.0f, 0.0f});
  b.mutable_grad() = torch::tensor({0.0f, 4.0f, 0.0f, 0.0f});
  EXPECT_NEAR(clipGradNorm({a, b}, 1.0), 5.0, 1e-6);
  EXPECT_NEAR(a.grad()[0].item<double>(), 0.6, 1e-5);
  EXPECT_NEAR(b.grad()[1].item<double>(), 0.8, 1e-5);
  EXPECT_NEAR(clipGradNorm({a, b}, 0.0), 1.0, 1e-5);  // disabled: unchanged
}

}  // namespace
}  // namespace deepladder::trainers

namespace deepladder::trainers {
namespace {

// What the LM trainer does not implement is refused by the one validation, before queueing.
TEST(Trainer, OptionsItDoesNotImplementAreRefusedByValidation) {
  const auto dir = testing::makeWorkspace("refuse");
  RunConfig config = testing::tinyConfig(dir);
  EXPECT_TRUE(options::isValidRunConfig(config));
  config.model.positions = Positions::learned;
  try {
    options::validateRunConfig(config, "tiny");
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("model.positions"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace deepladder::trainers
