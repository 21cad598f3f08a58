// Tests of the serial task's models and recipes (trainers/squaring): forward shapes in both
// layouts, the padding mask, looped cores at other iteration counts, truncated backprop, the
// random iteration counts and eval_passes parsing. Tiny models (d 32), a second or two.
#include "trainers/squaring/squaring_model.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "core/errors.h"
#include "core/squaring/dataset.h"
#include "core/squaring/tiers.h"
#include "trainers/squaring/iteration_sampler.h"
#include "trainers/squaring/squaring_eval.h"

namespace deepladder::trainers::squaring {
namespace {

ModelConfig tinyModel(const std::string& arch, const std::string& attention = "bidirectional") {
  ModelConfig m;
  m.vocab_size = 17;
  m.d_model = 32;
  m.n_head = 4;
  m.n_layer = arch == "pcc" ? 3 : 1;
  m.seq_len = 13;
  m.positions = Positions::learned;
  m.attention = *enumFromName<AttentionMask>(attention);
  m.arch = *enumFromName<Arch>(arch);
  m.core_mode = CoreMode::tied;
  m.passes = 3;
  return m;
}

std::vector<sq::Example> someExamples(int count) {
  auto all = sq::generateTierDataset(sq::tierPreset("E1"), 0).train;
  all.resize(static_cast<size_t>(count));
  return all;
}

TEST(SquaringModel, ForwardShapesInBothLayouts) {
  torch::manual_seed(0);
  const auto examples = someExamples(5);
  SquaringModel separate(tinyModel("vanilla"), 13);
  const EncodedSet s = encodeSet(examples, SquaringLayout::separate, 13, torch::kCPU);
  ASSERT_TRUE(s.key_bias.defined());
  auto logits = separate->forward(s.tokens, s.key_bias, LoopPlan{});
  EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{5, 13, 17}));

  const int64_t causal_len = sq::causalSeqLenBound(11, 64);
  SquaringModel causal(tinyModel("pcc", "causal"), causal_len);
  const EncodedSet c = encodeSet(examples, SquaringLayout::causal, causal_len, torch::kCPU);
  EXPECT_FALSE(c.key_bias.defined());
  logits = causal->forward(c.tokens, c.key_bias, LoopPlan{3, 0});
  EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{5, causal_len, 17}));
  EXPECT_TRUE(torch::isfinite(logits).all().item<bool>());
}

TEST(SquaringModel, PaddingPositionsDoNotChangeRealOutputs) {
  torch::manual_seed(1);
  SquaringModel model(tinyModel("pcc"), 13);
  model->eval();
  const EncodedSet s = encodeSet(someExamples(8), SquaringLayout::separate, 13, torch::kCPU);
  const auto pad = s.key_bias.squeeze(1).lt(-1);  // (B,T) true on PAD
  ASSERT_GT(pad.sum().item<int64_t>(), 0);
  auto scrambled = s.tokens.clone();
  scrambled.masked_scatter_(pad, torch::randint(0, 17, {pad.sum().item<int64_t>()}, torch::kInt64));
  ASSERT_FALSE(torch::equal(scrambled, s.tokens));
  torch::NoGradGuard no_grad;
  const auto a = model->forward(s.tokens, s.key_bias, LoopPlan{3, 0});
  const auto b = model->forward(scrambled, s.key_bias, LoopPlan{3, 0});
  const auto real = (~pad).unsqueeze(-1).expand_as(a);
  EXPECT_TRUE(torch::allclose(a.masked_select(real), b.masked_select(real), 1e-5, 1e-5));
  // And the mask matters: without it the same scramble changes real positions.
  const auto c = model->forward(scrambled, torch::Tensor(), LoopPlan{3, 0});
  EXPECT_FALSE(torch::allclose(a.masked_select(real), c.masked_select(real), 1e-5, 1e-5));
}

TEST(SquaringModel, LoopedCoreRunsAtOtherIterationCounts) {
  torch::manual_seed(2);
  SquaringModel model(tinyModel("pcc"), 13);
  ASSERT_TRUE(model->looped());
  const EncodedSet s = encodeSet(someExamples(4), SquaringLayout::separate, 13, torch::kCPU);
  torch::NoGradGuard no_grad;
  const auto r3 = model->forward(s.tokens, s.key_bias, LoopPlan{3, 0});
  for (int64_t r : {1, 7, 16}) {
    const auto out = model->forward(s.tokens, s.key_bias, LoopPlan{r, 0});
    EXPECT_EQ(out.sizes(), r3.sizes());
    EXPECT_TRUE(torch::isfinite(out).all().item<bool>());
    EXPECT_FALSE(torch::allclose(out, r3)) << "r = " << r << " gave the r = 3 output";
  }
}

// Gradients of the core with truncated backprop equal those of a run that starts the last k
// iterations from the (constant) state after r - k, and differ from full backprop.
TEST(SquaringModel, TruncatedBackpropOnlyThroughLastIterations) {
  torch::manual_seed(3);
  SquaringModel model(tinyModel("pcc"), 13);
  const EncodedSet s = encodeSet(someExamples(6), SquaringLayout::separate, 13, torch::kCPU);
  const int64_t r = 5, k = 2;
  auto coreGrads = [&]() {
    std::vector<torch::Tensor> out;
    for (const auto& p : model->core->parameters()) out.push_back(p.grad().clone());
    model->zero_grad();
    return out;
  };
  answerLoss(model->forward(s.tokens, s.key_bias, LoopPlan{r, k}), s.targets).backward();
  const auto truncated = coreGrads();

  const auto e = model->encode(s.tokens, s.key_bias);
  torch::Tensor h;
  {
    torch::NoGradGuard no_grad;
    h = model->iterate(h, e, s.key_bias, 0, r - k);
  }
  h = model->iterate(h.detach(), e, s.key_bias, r - k, k);
  answerLoss(model->decode(h, e, s.key_bias), s.targets).backward();
  const auto manual = coreGrads();

  answerLoss(model->forward(s.tokens, s.key_bias, LoopPlan{r, 0}), s.targets).backward();
  const auto full = coreGrads();
  ASSERT_EQ(truncated.size(), manual.size());
  bool differs_from_full = false;
  for (size_t i = 0; i < truncated.size(); ++i) {
    EXPECT_TRUE(torch::allclose(truncated[i], manual[i], 1e-5, 1e-6)) << "core parameter " << i;
    differs_from_full = differs_from_full || !torch::allclose(truncated[i], full[i], 1e-4, 1e-6);
  }
  EXPECT_TRUE(differs_from_full);
}

TEST(IterationSampler, PoissonLognormalStatistics) {
  SquaringConfig q;
  q.iterations = IterationRule::poisson_lognormal;
  q.mean_iterations = 5.0;
  q.iteration_sigma = 0.5;
  IterationSampler sampler(q, 3, 42);
  const int n = 20000;
  std::vector<int64_t> draws;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    draws.push_back(sampler.next());
    sum += static_cast<double>(draws.back());
    ASSERT_GE(draws.back(), 1);
    ASSERT_LE(draws.back(), sampler.maxIterations());
  }
  std::nth_element(draws.begin(), draws.begin() + n / 2, draws.end());
  const double expected_mean = 1.0 + 4.0 * std::exp(0.5 * 0.5 * 0.5);  // 5.53 (cap trims little)
  EXPECT_NEAR(sum / n, expected_mean, 0.15);
  EXPECT_NEAR(static_cast<double>(draws[n / 2]), 5.0, 1.0);
  SquaringConfig fixed;
  IterationSampler constant(fixed, 4, 1);
  EXPECT_EQ(constant.next(), 4);
  EXPECT_EQ(constant.next(), 4);
}

TEST(IterationSampler, EvalPasses) {
  EXPECT_EQ(parseEvalPasses("1..4"), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(parseEvalPasses("8,2,4"), (std::vector<int64_t>{2, 4, 8}));
  EXPECT_EQ(parseEvalPasses("3"), (std::vector<int64_t>{3}));
  EXPECT_THROW(parseEvalPasses("4..2"), UserError);
  EXPECT_THROW(parseEvalPasses("0..3"), UserError);
  EXPECT_THROW(parseEvalPasses("a,b"), UserError);
}

}  // namespace
}  // namespace deepladder::trainers::squaring
