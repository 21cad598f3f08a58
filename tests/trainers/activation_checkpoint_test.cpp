// Activation checkpointing (trainers/activation_checkpoint.h through GPTImpl): the loss and every
// parameter's gradient with activation_checkpointing = "blocks" and "every_k" (k = 1, 2, 3 and
// sqrt(L)) equal those of the plain forward, for a vanilla stack, the plain-stack boundary form
// (its anchor a block output), LayerNorm scaling, the growth recipe's block options, pcc with an
// untied and a tied (looped) core, a grown untied_grow model, and under bf16 autocast (the
// recomputation must run under the forward's autocast state, or its bfloat16 roundings differ).
// A 256-block model trains 5 steps with every_k. Reference: the same model without checkpointing.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/architecture.h"
#include "tiny_run.h"
#include "trainers/gpt.h"
#include "trainers/micro_batches.h"
#include "trainers/precision.h"

namespace deepladder::trainers {
namespace {

ModelConfig model(int64_t n_layer) {
  ModelConfig m;
  m.vocab_size = 64;
  m.d_model = 16;
  m.n_head = 2;
  m.n_layer = n_layer;
  m.seq_len = 12;
  return m;
}

struct LossAndGrads {
  double loss = 0;
  std::vector<torch::Tensor> grads;  // in named_parameters order
  std::vector<std::string> names;
};

// Loss and gradients of one forward + backward over fixed tokens, from the same initial weights.
LossAndGrads lossAndGrads(const ModelConfig& m, ActivationCheckpointing mode, int64_t k,
                          Precision precision = Precision::fp32, bool grow = false) {
  torch::manual_seed(7);
  GPT gpt(m);
  if (grow) gpt->grow();
  gpt->setActivationCheckpointing(mode, k);
  gpt->train();
  torch::manual_seed(11);
  const torch::Tensor rows = torch::randint(0, m.vocab_size, {3, m.seq_len + 1}, torch::kInt64);
  LossAndGrads out;
  out.loss = accumulateGradients(gpt, rows, ForwardOptions{0, precision});
  for (const auto& item : gpt->named_parameters()) {
    out.names.push_back(item.key());
    out.grads.push_back(item.value().grad().defined() ? item.value().grad().clone()
                                                      : torch::zeros_like(item.value()));
  }
  return out;
}

// max |a - b| / max |a| over each gradient: 0 for bitwise-equal gradients.
void expectSameGradients(const LossAndGrads& plain, const LossAndGrads& checkpointed,
                         const std::string& what, double tolerance = 1e-6) {
  EXPECT_NEAR(checkpointed.loss, plain.loss, 1e-7 * std::abs(plain.loss)) << what;
  ASSERT_EQ(plain.grads.size(), checkpointed.grads.size());
  double worst = 0;
  for (size_t i = 0; i < plain.grads.size(); ++i) {
    const double scale = plain.grads[i].abs().max().item<double>();
    const double diff = (plain.grads[i] - checkpointed.grads[i]).abs().max().item<double>();
    const double rel = scale > 0 ? diff / scale : diff;
    worst = std::max(worst, rel);
    EXPECT_LE(rel, tolerance) << what << ": " << plain.names[i];
  }
  EXPECT_GT(plain.grads.size(), 0u);
  ::testing::Test::RecordProperty(what, std::to_string(worst));
}

void expectCheckpointingChangesNothing(const ModelConfig& m, const std::string& what,
                                       Precision precision = Precision::fp32, bool grow = false) {
  const LossAndGrads plain = lossAndGrads(m, ActivationCheckpointing::none, 0, precision, grow);
  double total = 0;
  for (const auto& g : plain.grads) total += g.abs().sum().item<double>();
  ASSERT_GT(total, 0.0) << what << ": no gradient at all";
  expectSameGradients(plain, lossAndGrads(m, ActivationCheckpointing::blocks, 0, precision, grow),
                      what + " blocks");
  for (int64_t k : {0, 2, 3})
    expectSameGradients(plain,
                        lossAndGrads(m, ActivationCheckpointing::every_k, k, precision, grow),
                        what + " every_k k=" + std::to_string(k));
}

TEST(ActivationCheckpointing, VanillaStackGradientsEqualThePlainForward) {
  expectCheckpointingChangesNothing(model(5), "vanilla");
}

TEST(ActivationCheckpointing, PlainStackBoundaryOperatorWithABlockAnchor) {
  ModelConfig m = model(7);
  m.boundary_every = 2;
  m.boundary_source = 1;  // the anchor is block 1's output, inside the first stretch
  m.alpha = 0.5;
  expectCheckpointingChangesNothing(m, "boundary_every 2, source 1");
  m.boundary_source = 0;  // the anchor is the embedding output, also the first stretch's input
  expectCheckpointingChangesNothing(m, "boundary_every 2, source 0");
}

TEST(ActivationCheckpointing, LayerNormScalingAndRecipeBlockOptions) {
  ModelConfig m = model(4);
  m.layernorm_scaling = true;
  m.qk_norm = true;
  m.norm_gain = false;
  m.embed_norm = true;
  m.residual_scale = 0.5;
  m.mlp = MlpKind::swiglu;
  m.tie_embeddings = false;
  expectCheckpointingChangesNothing(m, "recipe block options");
}

TEST(ActivationCheckpointing, PccUntiedTiedAndGrownCores) {
  ModelConfig untied = model(6);
  applyArmPreset("untied_2", untied);
  expectCheckpointingChangesNothing(untied, "pcc untied K=2");
  ModelConfig tied = model(6);
  applyArmPreset("loop_2", tied);
  tied.passes = 3;  // a looped core's parameters get the sum over its passes
  expectCheckpointingChangesNothing(tied, "pcc tied K=3");
  ModelConfig grow = model(6);
  applyArmPreset("untied_grow", grow);
  expectCheckpointingChangesNothing(grow, "untied_grow after growth", Precision::fp32,
                                    /*grow=*/true);
  ModelConfig short_stack = model(3);  // one block each: prelude, core, coda
  applyArmPreset("loop_2", short_stack);
  expectCheckpointingChangesNothing(short_stack, "pcc n_layer 3");
}

TEST(ActivationCheckpointing, RecomputesUnderTheForwardsBf16Autocast) {
  if (!cpuSupportsBf16()) GTEST_SKIP() << "this CPU has no native bfloat16";
  ModelConfig m = model(4);
  applyArmPreset("untied_2", m);
  const LossAndGrads fp32 = lossAndGrads(m, ActivationCheckpointing::none, 0);
  const LossAndGrads bf16 = lossAndGrads(m, ActivationCheckpointing::none, 0, Precision::bf16);
  // bf16 autocast changes the numbers (so a recomputation in float32 would be caught)...
  double change = 0;
  for (size_t i = 0; i < fp32.grads.size(); ++i)
    change = std::max(change, (fp32.grads[i] - bf16.grads[i]).abs().max().item<double>() /
                                  fp32.grads[i].abs().max().item<double>());
  EXPECT_GT(change, 1e-4) << "bf16 autocast did not change the gradients: is it on?";
  // ...and checkpointed bf16 gradients equal plain bf16 ones.
  expectSameGradients(bf16, lossAndGrads(m, ActivationCheckpointing::blocks, 0, Precision::bf16),
                      "bf16 blocks");
  expectSameGradients(bf16, lossAndGrads(m, ActivationCheckpointing::every_k, 2, Precision::bf16),
                      "bf16 every_k 2");
  EXPECT_FALSE(autocastEnabled(c10::DeviceType::CPU)) << "autocast left on after backward";
}

TEST(ActivationCheckpointing, StretchLengths) {
  GPT gpt(model(2));
  EXPECT_EQ(gpt->checkpointStretch(256), 0);
  gpt->setActivationCheckpointing(ActivationCheckpointing::blocks);
  EXPECT_EQ(gpt->checkpointStretch(256), 1);
  gpt->setActivationCheckpointing(ActivationCheckpointing::every_k);
  EXPECT_EQ(gpt->checkpointStretch(256), 16);
  EXPECT_EQ(gpt->checkpointStretch(1024), 32);
  EXPECT_EQ(gpt->checkpointStretch(10), 3);
  gpt->setActivationCheckpointing(ActivationCheckpointing::every_k, 5);
  EXPECT_EQ(gpt->checkpointStretch(256), 5);
}

TEST(ActivationCheckpointing, A256BlockModelTrainsFiveSteps) {
  const auto dir = testing::makeWorkspace("deep256");
  RunConfig c = testing::tinyConfig(dir);
  c.model.n_layer = 256;
  c.model.d_model = 32;
  c.model.n_head = 2;
  c.model.seq_len = 16;
  c.train.batch_size = 4;
  c.train.micro_batch = 2;
  c.train.steps = 5;
  c.train.warmup_steps = 1;
  c.train.eval_every = 5;
  c.train.eval_batches = 1;
  c.train.checkpoint_every = 0;
  c.train.activation_checkpointing = ActivationCheckpointing::every_k;
  TrainerOptions options;
  options.workdir = (dir / "run").string();
  const auto run = testing::runTiny(c, options);
  EXPECT_EQ(run.outcome.status, TrainStatus::kFinished);
  EXPECT_EQ(run.outcome.steps, 5);
  const auto losses = run.curve("train/loss");
  ASSERT_EQ(losses.size(), 5u);
  for (const auto& [step, loss] : losses) EXPECT_TRUE(std::isfinite(loss)) << step;
  EXPECT_LT(losses.rbegin()->second, losses.begin()->second) << "a 256-block model did not learn";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace deepladder::trainers
