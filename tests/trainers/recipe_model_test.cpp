// The growth recipe's model options in the GPT, for vanilla stacks and prelude/core/coda
// arms, growth included: with init = "recipe" every logit is zero, so the first loss is exactly
// ln vocab_size; norms without a gain have no parameters; QK-norm rows have unit RMS; a padded
// vocabulary gives vocab_size logits and the parameter count of core/flop_model.h; r and m_out
// scale the residual branches and the logits as stated; embed_norm normalizes the embedding.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "core/architecture.h"
#include "core/flop_model.h"
#include "trainers/gpt.h"

namespace deepladder::trainers {
namespace {

// The recipe's options at a small size: no gains, QK-norm, embedding norm, r, m_out, recipe
// init, SwiGLU, untied head, vocabulary 50 padded to 64.
ModelConfig recipeModel(const std::string& preset) {
  ModelConfig m;
  m.vocab_size = 50;
  m.vocab_padded = 64;
  m.d_model = 32;
  m.n_head = 2;
  m.n_layer = 6;
  m.seq_len = 16;
  m.mlp = MlpKind::swiglu;
  m.tie_embeddings = false;
  applyArmPreset(preset, m);
  m.norm_gain = false;
  m.qk_norm = true;
  m.embed_norm = true;
  m.residual_scale = 0.25;
  m.output_scale = 0.5;
  m.init = InitScheme::recipe;
  m.init_embed_std = 0.1;
  m.init_uniform = 0.5;
  return m;
}

const char* kPresets[] = {"vanilla", "operator_1", "untied_grow", "loop_grow"};

TEST(RecipeModel, FirstLossIsExactlyLnVocabForEveryArm) {
  for (const char* preset : kPresets) {
    torch::manual_seed(1);
    const ModelConfig m = recipeModel(preset);
    GPT model(m);
    const auto idx = torch::randint(0, m.vocab_size, {3, 16}, torch::kInt64);
    const auto logits = model->forward(idx);
    EXPECT_EQ(logits.abs().max().item<double>(), 0.0) << preset;
    EXPECT_NEAR(model->loss(idx, idx).item<double>(), std::log(50.0), 1e-6) << preset;
    if (architectureShape(m).grows) {
      model->grow();  // copied blocks are zero-output too
      EXPECT_NEAR(model->loss(idx, idx).item<double>(), std::log(50.0), 1e-6) << preset;
    }
  }
}

TEST(RecipeModel, RecipeInitDrawsTheStatedDistributions) {
  torch::manual_seed(2);
  ModelConfig m = recipeModel("vanilla");
  m.d_model = 64;
  m.n_head = 4;
  GPT model(m);
  const double bound = 0.5 / std::sqrt(64.0);
  auto block = model->blocks[0]->as<BlockImpl>();
  for (const auto& w : {block->attn->qkv->weight, block->mlp->up->weight}) {
    EXPECT_LE(w.abs().max().item<double>(), bound);
    EXPECT_GT(w.abs().max().item<double>(), 0.95 * bound);
    EXPECT_NEAR(w.pow(2).mean().item<double>(), bound * bound / 3.0, 0.1 * bound * bound / 3.0);
  }
  EXPECT_EQ(block->attn->proj->weight.abs().max().item<double>(), 0.0);
  EXPECT_EQ(block->mlp->down->weight.abs().max().item<double>(), 0.0);
  EXPECT_EQ(model->unembedding->weight.abs().max().item<double>(), 0.0);
  EXPECT_NEAR(model->token_embedding->weight.std().item<double>(), 0.1, 0.01);
}

TEST(RecipeModel, NormsWithoutGainHaveNoParameters) {
  RMSNorm with_gain(8);
  RMSNorm without_gain(8, 1e-6, /*learned_gain=*/false);
  EXPECT_EQ(with_gain->parameters().size(), 1u);
  EXPECT_TRUE(without_gain->parameters().empty());
  const auto x = torch::randn({3, 8});
  EXPECT_TRUE(torch::allclose(with_gain(x), without_gain(x)));  // gain starts at ones
  const ModelConfig m = recipeModel("operator_1");
  GPT model(m);
  for (const auto& item : model->named_parameters())
    EXPECT_EQ(item.key().find("norm"), std::string::npos) << item.key();
}

TEST(RecipeModel, QkNormGivesQueriesAndKeysUnitRmsRows) {
  torch::manual_seed(3);
  CausalSelfAttention attn(/*d_model=*/32, /*n_head=*/2, /*max_seq_len=*/16, /*rope_base=*/1e4,
                           /*qk_norm=*/true, /*norm_gain=*/false);
  const auto q = torch::randn({2, 2, 16, 16}) * 7.0;  // (B,H,T,D)
  const auto normed = attn->q_norm(attn->rotary(q));
  const auto rms = normed.pow(2).mean(-1).sqrt();  // (B,H,T)
  EXPECT_TRUE(torch::allclose(rms, torch::ones_like(rms), 1e-4, 1e-4));
  // The attention with QK-norm differs from the one without it on the same weights.
  CausalSelfAttention plain(32, 2, 16, 1e4);
  {
    torch::NoGradGuard no_grad;
    plain->qkv->weight.copy_(attn->qkv->weight);
    plain->proj->weight.copy_(attn->proj->weight);
  }
  const auto x = torch::randn({2, 16, 32}) * 3.0;
  EXPECT_FALSE(torch::allclose(attn(x), plain(x), 1e-3, 1e-3));
}

TEST(RecipeModel, PaddedVocabularyCutsLogitsAndMatchesTheFlopModelCount) {
  for (const char* preset : kPresets) {
    for (bool gains : {false, true}) {
      ModelConfig m = recipeModel(preset);
      m.norm_gain = gains;
      m.init = InitScheme::gpt2;
      GPT model(m);
      EXPECT_EQ(model->token_embedding->weight.size(0), 64);
      EXPECT_EQ(model->unembedding->weight.size(0), 64);
      const auto idx = torch::randint(0, m.vocab_size, {2, 16}, torch::kInt64);
      std::vector<torch::Tensor> residuals;
      const auto logits = model->forward(idx, &residuals);
      EXPECT_EQ(logits.size(-1), 50) << preset;
      EXPECT_EQ(model->decode(residuals.back()).size(-1), 50);
      EXPECT_EQ(model->parameterCount(), countParameters(m).total) << preset << " " << gains;
      if (architectureShape(m).grows) {
        model->grow();
        EXPECT_EQ(model->parameterCount(), countParameters(m).total_after_growth) << preset;
      }
    }
  }
}

TEST(RecipeModel, ResidualAndOutputMultipliersScaleAsStated) {
  torch::manual_seed(4);
  ModelConfig m = recipeModel("vanilla");
  m.init = InitScheme::gpt2;  // non-zero branches
  m.n_layer = 1;
  m.residual_scale = 1.0;
  m.output_scale = 1.0;
  GPT base(m);
  ModelConfig scaled_config = m;
  scaled_config.residual_scale = 0.25;
  scaled_config.output_scale = 0.5;
  GPT scaled(scaled_config);
  {
    torch::NoGradGuard no_grad;
    auto from = base->named_parameters();
    for (auto& item : scaled->named_parameters()) item.value().copy_(from[item.key()]);
  }
  torch::NoGradGuard no_grad;
  const auto idx = torch::randint(0, m.vocab_size, {2, 16}, torch::kInt64);
  // Block: x + r Attn(Norm x), then + r MLP(Norm h), by hand.
  auto block = scaled->blocks[0]->as<BlockImpl>();
  const auto x = scaled->embed(idx);
  const auto h = x + 0.25 * block->attn(block->attn_norm(x));
  const auto y = h + 0.25 * block->mlp(block->mlp_norm(h));
  std::vector<torch::Tensor> residuals;
  const auto logits = scaled->forward(idx, &residuals);
  EXPECT_TRUE(torch::allclose(residuals[1], y, 1e-5, 1e-5));
  // Head: logits = m_out W_head Norm(h), the first vocab_size rows.
  const auto by_hand =
      0.5 * torch::matmul(scaled->final_norm(y), scaled->unembedding->weight.narrow(0, 0, 50).t());
  EXPECT_TRUE(torch::allclose(logits, by_hand, 1e-5, 1e-5));
  // r = 1, m_out = 1 on the same weights give other outputs.
  EXPECT_FALSE(torch::allclose(base->forward(idx), logits, 1e-3, 1e-3));
}

TEST(RecipeModel, EmbeddingOutputIsNormalizedBeforeTheFirstBlock) {
  torch::manual_seed(5);
  const ModelConfig m = recipeModel("operator_1");
  GPT model(m);
  torch::NoGradGuard no_grad;
  const auto idx = torch::randint(0, m.vocab_size, {2, 16}, torch::kInt64);
  std::vector<torch::Tensor> residuals;
  model->forward(idx, &residuals);
  const auto rms = residuals[0].pow(2).mean(-1).sqrt();
  EXPECT_TRUE(torch::allclose(rms, torch::ones_like(rms), 1e-4, 1e-4));
  ModelConfig raw = m;
  raw.embed_norm = false;
  GPT unnormalized(raw);
  EXPECT_LT(unnormalized->embed(idx).pow(2).mean().sqrt().item<double>(), 0.2);  // s_emb 0.1
}

}  // namespace
}  // namespace deepladder::trainers
