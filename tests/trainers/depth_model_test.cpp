// Depth architectures in the GPT: the boundary operator on known tensors, the
// prelude/core/coda split actually executed for n_layer 3..12, parameter counts of every arm
// preset at d_model 128 / n_layer 6 against core's countParameters (before and after growth),
// tied cores sharing storage and untied ones not, growth copying cores exactly with fresh
// optimizer state, and the re-warm factor. Hand counts come from core/flop_model.h's formula.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/architecture.h"
#include "core/flop_model.h"
#include "trainers/adamw.h"
#include "trainers/boundary_operator.h"
#include "trainers/gpt.h"
#include "trainers/growth.h"

namespace deepladder::trainers {
namespace {

ModelConfig smallModel(int64_t n_layer) {
  ModelConfig m;
  m.vocab_size = 64;
  m.d_model = 16;
  m.n_head = 2;
  m.n_layer = n_layer;
  m.seq_len = 8;
  return m;
}

torch::nn::ModuleListImpl& coreStack(GPTImpl& model, size_t k) {
  return *model.cores->ptr(k)->as<torch::nn::ModuleListImpl>();
}

TEST(BoundaryOperator, IsParameterFreeRmsNormPlusAlphaTimesE) {
  const auto h = torch::tensor({{3.0, 4.0}, {0.0, 2.0}}, torch::kFloat64);
  const auto e = torch::tensor({{1.0, -2.0}, {5.0, 0.5}}, torch::kFloat64);
  const auto y = boundaryOperator(h, e, /*alpha=*/0.5, /*eps=*/1e-6);
  // Row 0: mean(h^2) = 12.5; row 1: mean(h^2) = 2.
  const double r0 = std::sqrt(12.5 + 1e-6), r1 = std::sqrt(2.0 + 1e-6);
  EXPECT_NEAR(y[0][0].item<double>(), 3.0 / r0 + 0.5, 1e-12);
  EXPECT_NEAR(y[0][1].item<double>(), 4.0 / r0 - 1.0, 1e-12);
  EXPECT_NEAR(y[1][0].item<double>(), 0.0 + 2.5, 1e-12);
  EXPECT_NEAR(y[1][1].item<double>(), 2.0 / r1 + 0.25, 1e-12);
  // alpha = 0: plain normalisation, rms of the result is 1 (up to eps).
  const auto n = boundaryOperator(h, e, 0.0);
  EXPECT_NEAR(n[0].pow(2).mean().item<double>(), 12.5 / (12.5 + 1e-6), 1e-12);
}

TEST(DepthModel, PreludeCoreCodaSplitIsWhatRunsForNLayer3To12) {
  torch::manual_seed(0);
  for (int64_t n_layer = 3; n_layer <= 12; ++n_layer) {
    ModelConfig m = smallModel(n_layer);
    applyArmPreset("untied_2", m);
    GPT model(m);
    const BlockSplit split = splitPreludeCoreCoda(n_layer);
    EXPECT_EQ(split.prelude + split.core + split.coda, n_layer);
    ASSERT_EQ(static_cast<int64_t>(model->prelude->size()), split.prelude) << n_layer;
    ASSERT_EQ(model->cores->size(), 2u);
    EXPECT_EQ(static_cast<int64_t>(coreStack(*model, 0).size()), split.core) << n_layer;
    EXPECT_EQ(static_cast<int64_t>(coreStack(*model, 1).size()), split.core) << n_layer;
    EXPECT_EQ(static_cast<int64_t>(model->coda->size()), split.coda) << n_layer;
    std::vector<torch::Tensor> residuals;
    const auto idx = torch::randint(0, m.vocab_size, {2, 8}, torch::kInt64);
    const auto logits = model->forward(idx, &residuals);
    EXPECT_EQ(static_cast<int64_t>(residuals.size()),
              split.prelude + 2 * split.core + split.coda + 1);
    EXPECT_EQ(model->executedBlocks(), architectureShape(m).before.executed_blocks);
    EXPECT_TRUE(torch::allclose(model->decode(residuals.back()), logits));
  }
  // The thirds rule on the uneven cases: extra block to the core first, then the coda.
  EXPECT_EQ(splitPreludeCoreCoda(7).core, 3);
  EXPECT_EQ(splitPreludeCoreCoda(8).coda, 3);
}

TEST(DepthModel, ForwardFollowsTheBoundaryOperatorEquations) {
  torch::manual_seed(1);
  ModelConfig m = smallModel(6);
  applyArmPreset("untied_2", m);
  m.alpha = 0.7;
  GPT model(m);
  const auto idx = torch::randint(0, m.vocab_size, {2, 8}, torch::kInt64);
  auto run = [](torch::nn::ModuleListImpl& stack, torch::Tensor x) {
    for (const auto& b : stack) x = b->as<BlockImpl>()->forward(x);
    return x;
  };
  torch::NoGradGuard no_grad;
  const auto e = run(*model->prelude, model->embed(idx));
  const auto h1 = run(coreStack(*model, 0), e);
  const auto h2 = run(coreStack(*model, 1), boundaryOperator(h1, e, 0.7, model->config.norm_eps));
  const auto y = run(*model->coda, boundaryOperator(h2, e, 0.7, model->config.norm_eps));
  EXPECT_TRUE(torch::allclose(model->forward(idx), model->decode(y), 1e-5, 1e-6));
}

TEST(DepthModel, ParameterCountsOfEveryArmAtD128L6MatchTheFlopModel) {
  std::printf("%-18s %10s %10s %8s %8s %14s %14s\n", "arm", "params", "params_grown", "exec",
              "exec_grown", "flops/token", "flops/token_grown");
  for (const auto& arm : armPresetNames()) {
    ModelConfig m;
    m.vocab_size = 256;
    m.d_model = 128;
    m.n_head = 4;
    m.n_layer = 6;
    m.seq_len = 64;
    applyArmPreset(arm, m);
    GPT model(m);
    const ParameterCounts counts = countParameters(m);
    EXPECT_EQ(model->parameterCount(), counts.total) << arm;
    EXPECT_EQ(model->executedBlocks(), executedBlocks(m, false)) << arm;
    // Hand count: per block 4 d^2 + 2 d 4d + 2 d = 12 d^2 + 2 d = 196864; embedding 32768 tied;
    // final norm 128.
    const int64_t per_block = 12 * 128 * 128 + 2 * 128;
    EXPECT_EQ(counts.total,
              architectureShape(m).before.distinct_blocks * per_block + 256 * 128 + 128)
        << arm;
    if (architectureShape(m).grows) {
      model->grow();
      EXPECT_EQ(model->parameterCount(), counts.total_after_growth) << arm;
      EXPECT_EQ(model->executedBlocks(), executedBlocks(m, true)) << arm;
    }
    std::printf("%-18s %10lld %10lld %8lld %8lld %14.6e %14.6e\n", arm.c_str(),
                (long long)counts.total, (long long)counts.total_after_growth,
                (long long)executedBlocks(m, false), (long long)executedBlocks(m, true),
                flopsPerToken(m, false), flopsPerToken(m, true));
  }
}

std::set<const void*> storages(torch::nn::Module& module) {
  std::set<const void*> out;
  for (const auto& p : module.parameters()) out.insert(p.data_ptr());
  return out;
}

TEST(DepthModel, TiedCoresShareStorageAcrossPassesUntiedDoNot) {
  ModelConfig tied = smallModel(6);
  applyArmPreset("loop_grow", tied);
  GPT looped(tied);
  ASSERT_EQ(looped->cores->size(), 1u);  // one core, applied K times
  const int64_t before = looped->parameterCount();
  EXPECT_EQ(looped->grow(), "K 2 -> 4");
  EXPECT_EQ(looped->cores->size(), 1u);  // still one core: K switches
  EXPECT_EQ(looped->parameterCount(), before);
  EXPECT_EQ(looped->executedBlocks(), 2 + 4 * 2 + 2);

  ModelConfig untied = smallModel(6);
  applyArmPreset("untied_2", untied);
  GPT stacked(untied);
  ASSERT_EQ(stacked->cores->size(), 2u);
  const auto a = storages(coreStack(*stacked, 0));
  const auto b = storages(coreStack(*stacked, 1));
  for (const void* ptr : a) EXPECT_EQ(b.count(ptr), 0u);
  EXPECT_EQ(a.size(), coreStack(*stacked, 0).parameters().size());
}

TEST(Growth, UntiedCoresAreCopiedExactlyAndStartWithZeroOptimizerState) {
  torch::manual_seed(2);
  ModelConfig m = smallModel(6);
  applyArmPreset("untied_grow", m);
  GPT model(m);
  auto optimizer = std::make_unique<AdamW>(model->parameters(), AdamWOptions{});
  const auto idx = torch::randint(0, m.vocab_size, {2, 8}, torch::kInt64);
  for (int i = 0; i < 2; ++i) {
    model->loss(idx, idx).backward();
    optimizer->step(1e-2);
    optimizer->zeroGrad();
  }
  // Old moments, by parameter name, before growth.
  std::map<std::string, torch::Tensor> old_m;
  for (const auto& item : model->named_parameters())
    old_m[item.key()] = optimizer->moments(item.value()).first.clone();
  EXPECT_EQ(growModelAndOptimizer(model, optimizer, AdamWOptions{}), "K 2 -> 4");
  ASSERT_EQ(model->cores->size(), 4u);
  EXPECT_EQ(optimizer->stepCount(), 2);
  for (size_t j = 2; j < 4; ++j) {
    const auto copy = coreStack(*model, j).named_parameters();
    const auto source = coreStack(*model, j % 2).named_parameters();
    ASSERT_EQ(copy.size(), source.size());
    for (const auto& item : copy) {
      EXPECT_TRUE(torch::equal(item.value(), source[item.key()]))
          << "core " << j << " " << item.key();
      EXPECT_NE(item.value().data_ptr(), source[item.key()].data_ptr());
      const auto [mom1, mom2] = optimizer->moments(item.value());
      EXPECT_EQ(mom1.abs().max().item<double>(), 0.0);
      EXPECT_EQ(mom2.abs().max().item<double>(), 0.0);
    }
  }
  for (const auto& item : model->named_parameters()) {
    auto it = old_m.find(item.key());
    if (it == old_m.end()) continue;
    EXPECT_TRUE(torch::equal(optimizer->moments(item.value()).first, it->second)) << item.key();
  }
  EXPECT_EQ(model->parameterCount(), countParameters(m).total_after_growth);
  // The grown model trains: one more step moves every parameter, the copies included.
  model->loss(idx, idx).backward();
  optimizer->step(1e-2);
  EXPECT_FALSE(
      torch::equal(coreStack(*model, 2).parameters()[0], coreStack(*model, 0).parameters()[0]));
}

TEST(Growth, VanillaStackingRepeatsTheTrainedStack) {
  ModelConfig m = smallModel(3);
  m.grow_layers = 7;
  GPT model(m);
  EXPECT_EQ(model->grow(), "layers 3 -> 7");
  ASSERT_EQ(model->blocks->size(), 7u);
  for (size_t j = 3; j < 7; ++j) {
    const auto copy = model->blocks[j]->named_parameters();
    const auto source = model->blocks[j % 3]->named_parameters();
    for (const auto& item : copy) EXPECT_TRUE(torch::equal(item.value(), source[item.key()]));
  }
  EXPECT_EQ(model->parameterCount(), countParameters(m).total_after_growth);
}

// deep_vanilla_grow at depth 5 (split 1/2/2): 1 + 4 + 2 = 7 blocks grow to 1 + 8 + 2 = 11. The
// trained blocks stay the same modules (parameters keep their identity, so the optimizer keeps
// their state); the copies of the middle section (blocks 1..4) come right after it, before the
// coda, as untied_grow's cores C1 C2 -> C1 C2 C1 C2.
TEST(Growth, DeepVanillaGrowDuplicatesTheMiddleSectionInPlace) {
  torch::manual_seed(11);
  ModelConfig m = smallModel(5);
  applyArmPreset("deep_vanilla_grow", m);
  ASSERT_EQ(m.n_layer, 7);
  ASSERT_EQ(m.grow_layers, 11);
  GPT model(m);
  std::vector<std::shared_ptr<torch::nn::Module>> before;
  for (size_t j = 0; j < model->blocks->size(); ++j) before.push_back(model->blocks[j]);
  EXPECT_EQ(model->grow(), "layers 7 -> 11");
  ASSERT_EQ(model->blocks->size(), 11u);
  const std::vector<size_t> source = {0, 1, 2, 3, 4, 1, 2, 3, 4, 5, 6};
  for (size_t j = 0; j < 11; ++j) {
    const bool copy = j >= 5 && j < 9;
    EXPECT_EQ(model->blocks[j].get() == before[source[j]].get(), !copy) << j;
    const auto params = model->blocks[j]->named_parameters();
    const auto original = before[source[j]]->named_parameters();
    for (const auto& item : params) {
      EXPECT_TRUE(torch::equal(item.value(), original[item.key()])) << j << " " << item.key();
      EXPECT_EQ(item.value().is_same(original[item.key()]), !copy) << j << " " << item.key();
    }
  }
  // The module tree names the blocks by their new position (checkpoints read them by name).
  const auto named = model->named_parameters();
  EXPECT_TRUE(named["blocks.5.attn.qkv.weight"].is_same(
      model->blocks[5]->named_parameters()["attn.qkv.weight"]));
  EXPECT_TRUE(
      named["blocks.9.attn.qkv.weight"].is_same(before[5]->named_parameters()["attn.qkv.weight"]));
  EXPECT_EQ(model->parameterCount(), countParameters(m).total_after_growth);
  EXPECT_EQ(model->executedBlocks(), executedBlocks(m, true));
}

TEST(Growth, LearningRateRewarmsOverRewarmStepsFromTheCrossover) {
  ModelConfig m = smallModel(6);
  applyArmPreset("untied_grow", m);  // grow_fraction 0.75, rewarm 40
  ASSERT_EQ(growthStep(m, 100), 75);
  // Steps are 0-based update indices (lr_schedule.h): update 75 is the first after growth.
  EXPECT_DOUBLE_EQ(rewarmFactor(m, 100, 0), 1.0);
  EXPECT_DOUBLE_EQ(rewarmFactor(m, 100, 74), 1.0);  // the last low-K update
  EXPECT_DOUBLE_EQ(rewarmFactor(m, 100, 75), 0.0);
  EXPECT_DOUBLE_EQ(rewarmFactor(m, 100, 76), 1.0 / 40);
  EXPECT_DOUBLE_EQ(rewarmFactor(m, 100, 95), 20.0 / 40);
  EXPECT_DOUBLE_EQ(rewarmFactor(m, 100, 99), 24.0 / 40);
  EXPECT_DOUBLE_EQ(rewarmFactor(m, 200, 150 + 40), 1.0);
  EXPECT_DOUBLE_EQ(rewarmFactor(m, 200, 150 + 39), 39.0 / 40);
  m.rewarm_steps = 10;
  EXPECT_DOUBLE_EQ(rewarmFactor(m, 100, 80), 0.5);
  applyArmPreset("untied_2", m);  // no growth: never scaled
  EXPECT_DOUBLE_EQ(rewarmFactor(m, 100, 80), 1.0);
}

TEST(DepthModel, PlainStackBoundaryAndLayerNormScalingChangeTheForward) {
  torch::manual_seed(3);
  ModelConfig m = smallModel(4);
  GPT plain(m);
  ModelConfig b = m;
  b.boundary_every = 2;
  b.boundary_source = 0;
  GPT bounded(b);
  ModelConfig s = m;
  s.layernorm_scaling = true;
  GPT scaled(s);
  torch::NoGradGuard no_grad;
  for (GPT* other : {&bounded, &scaled}) {
    auto dst = (*other)->named_parameters();
    for (const auto& item : plain->named_parameters()) dst[item.key()].copy_(item.value());
  }
  const auto idx = torch::randint(0, m.vocab_size, {2, 8}, torch::kInt64);
  // Boundary every 2 blocks from the embedding: after block 2, h <- BO(h, emb).
  auto x = plain->embed(idx);
  const auto emb = x;
  x = plain->blocks[0]->as<BlockImpl>()->forward(x);
  x = plain->blocks[1]->as<BlockImpl>()->forward(x);
  x = boundaryOperator(x, emb, 1.0, m.norm_eps);
  x = plain->blocks[2]->as<BlockImpl>()->forward(x);
  x = plain->blocks[3]->as<BlockImpl>()->forward(x);
  EXPECT_TRUE(torch::allclose(bounded->forward(idx), plain->decode(x), 1e-5, 1e-6));
  // LayerNorm scaling: block l's pre-norm outputs times 1/sqrt(l).
  x = plain->embed(idx);
  for (int64_t l = 1; l <= 4; ++l)
    x = plain->blocks[l - 1]->as<BlockImpl>()->forward(x, 1.0 / std::sqrt(double(l)));
  EXPECT_TRUE(torch::allclose(scaled->forward(idx), plain->decode(x), 1e-5, 1e-6));
  EXPECT_FALSE(torch::allclose(scaled->forward(idx), plain->forward(idx), 1e-5, 1e-6));
  EXPECT_EQ(bounded->parameterCount(), countParameters(b).total);
}

}  // namespace
}  // namespace deepladder::trainers
