// The recipe's RunOptimizer ("muon"): the embedding and head AdamW groups decay with the arm's
// weight_decay as the growth paper's code does (decoupled, not cautious, p *= 1 - lr wd every
// step at the group's own scheduled rate), checked on one step of known tensors against a hand
// computation in double precision.
#include "trainers/run_optimizer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "trainers/gpt.h"
#include "trainers/lr_schedule.h"

namespace deepladder::trainers {
namespace {

ModelConfig tinyRecipeModel() {
  ModelConfig m;
  m.vocab_size = 8;
  m.d_model = 4;
  m.n_layer = 1;
  m.n_head = 1;
  m.seq_len = 4;
  m.mlp = MlpKind::swiglu;
  m.tie_embeddings = false;
  m.norm_gain = false;
  m.init = InitScheme::recipe;
  return m;
}

TrainConfig recipeTrain() {
  TrainConfig t;
  t.optimizer = OptimizerKind::muon;
  t.lr = 0.04;
  t.embed_lr = 0.05;
  t.head_lr = 0.02;
  t.weight_decay = 0.1;
  t.cautious_weight_decay = true;  // Muon's decay; the AdamW groups' is never cautious
  t.beta1 = 0.8;
  t.beta2 = 0.95;
  t.eps = 1e-10;
  t.schedule = Schedule::wsd;
  t.steps = 10;
  t.warmup_steps = 4;  // update 1 runs at 2/4 of every base rate
  t.decay_fraction = 0.0;
  t.grad_clip = 0;
  return t;
}

// p1 = p0 (1 - lr wd) - lr g / (|g| + eps): AdamW's first step (m_hat = g, v_hat = g^2).
double handStep(double p0, double g, double lr, double wd, double eps) {
  return p0 * (1.0 - lr * wd) - lr * g / (std::abs(g) + eps);
}

TEST(RunOptimizer, EmbeddingAndHeadDecayAtTheirOwnScheduledRates) {
  torch::manual_seed(5);
  GPT model(tinyRecipeModel());
  model->to(torch::kFloat64);
  const TrainConfig train = recipeTrain();
  auto optimizer = RunOptimizer::create(train, model);
  torch::NoGradGuard no_grad;
  // Known weights, half positive, and gradients whose signs disagree with some of them (where a
  // cautious decay would skip the decay); only embedding and head get a gradient.
  const torch::Tensor embedding = model->token_embedding->weight;  // (8,4)
  const torch::Tensor head = model->unembedding->weight;           // (8,4)
  auto pattern = [](double scale, double shift) {
    return (torch::arange(32, torch::kFloat64).reshape({8, 4}) - shift) * scale;
  };
  embedding.copy_(pattern(0.01, 15.5));
  head.copy_(pattern(-0.02, 10.0));
  const torch::Tensor embedding_before = embedding.clone();
  const torch::Tensor head_before = head.clone();
  const torch::Tensor g_embedding = pattern(0.003, 20.25);
  const torch::Tensor g_head = pattern(-0.001, 3.5);
  embedding.mutable_grad() = g_embedding.clone();
  head.mutable_grad() = g_head.clone();

  const double multiplier = 0.5;  // WSD warmup: (1 + 1) / 4
  EXPECT_DOUBLE_EQ(scheduleMultiplier(train, 1), multiplier);
  optimizer->step(/*step=*/1, /*rewarm=*/1.0);
  for (int64_t i = 0; i < 8; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      const double e = handStep(embedding_before[i][j].item<double>(),
                                g_embedding[i][j].item<double>(), 0.05 * multiplier, 0.1, 1e-10);
      const double h = handStep(head_before[i][j].item<double>(), g_head[i][j].item<double>(),
                                0.02 * multiplier, 0.1, 1e-10);
      EXPECT_NEAR(embedding[i][j].item<double>(), e, 1e-15) << i << "," << j;
      EXPECT_NEAR(head[i][j].item<double>(), h, 1e-15) << i << "," << j;
    }
  }
  // Without a gradient nothing moves, decay included (the step skips the tensor).
  optimizer->zeroGrad();
  const torch::Tensor after = embedding.clone();
  optimizer->step(2, 1.0);
  EXPECT_TRUE(torch::equal(embedding, after));
}

// train.lr_mult scales every group's base rate together (Muon, embedding, head, gains; AdamW's
// one rate), so a learning-rate sweep moves the whole recipe.
TEST(RunOptimizer, LrMultScalesEveryGroupTogether) {
  ModelConfig with_gains = tinyRecipeModel();
  with_gains.norm_gain = true;  // a "gains" group too
  GPT gained(with_gains);
  TrainConfig train = recipeTrain();
  for (OptimizerKind kind : {OptimizerKind::muon, OptimizerKind::adamw}) {
    train.optimizer = kind;
    train.lr_mult = 1.0;
    const auto base = RunOptimizer::create(train, gained)->baseRates();
    train.lr_mult = 0.25;
    const auto scaled = RunOptimizer::create(train, gained)->baseRates();
    ASSERT_EQ(base.size(), scaled.size());
    ASSERT_GE(base.size(), kind == OptimizerKind::muon ? 4u : 1u);
    for (size_t i = 0; i < base.size(); ++i) {
      EXPECT_EQ(scaled[i].first, base[i].first);
      EXPECT_DOUBLE_EQ(scaled[i].second, 0.25 * base[i].second) << base[i].first;
    }
    const auto optimizer = RunOptimizer::create(train, gained);
    train.lr_mult = 1.0;
    EXPECT_DOUBLE_EQ(optimizer->learningRate(3, 1.0),
                     0.25 * RunOptimizer::create(train, gained)->learningRate(3, 1.0));
  }
}

}  // namespace
}  // namespace deepladder::trainers
