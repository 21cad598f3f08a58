// GPT model: parameter counts agree with core/flop_model.h, attention is causal, rotary
// embeddings make attention scores depend on relative position only, residual states for a lens.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <iostream>

#include "core/flop_model.h"
#include "trainers/cpu_gemm.h"
#include "trainers/gpt.h"
#include "trainers/rotary.h"

namespace deepladder::trainers {
namespace {

ModelConfig smallModel(const std::string& mlp, bool tied) {
  ModelConfig m;
  m.vocab_size = 97;
  m.d_model = 48;
  m.n_layer = 3;
  m.n_head = 4;
  m.seq_len = 16;
  m.mlp = *enumFromName<MlpKind>(mlp);
  m.tie_embeddings = tied;
  return m;
}

TEST(GPTModel, ParameterCountMatchesFlopModelForEveryMlpAndTying) {
  for (const std::string mlp : {"gelu", "swiglu"}) {
    for (bool tied : {true, false}) {
      const ModelConfig config = smallModel(mlp, tied);
      GPT model(config);
      EXPECT_EQ(model->parameterCount(), countParameters(config).total)
          << "mlp=" << mlp << " tied=" << tied;
    }
  }
}

TEST(GPTModel, ForwardGivesLogitsOfShapeBatchTimeVocab) {
  torch::manual_seed(0);
  GPT model(smallModel("swiglu", false));
  auto idx = torch::randint(0, 97, {2, 16}, torch::kInt64);
  EXPECT_EQ(model->forward(idx).sizes(), (std::vector<int64_t>{2, 16, 97}));
  auto shorter = idx.narrow(1, 0, 5);
  EXPECT_EQ(model->forward(shorter).sizes(), (std::vector<int64_t>{2, 5, 97}));
}

TEST(GPTModel, ChangingAFutureTokenLeavesEarlierLogitsUnchanged) {
  torch::manual_seed(1);
  GPT model(smallModel("gelu", true));
  torch::NoGradGuard no_grad;
  auto idx = torch::randint(0, 97, {1, 16}, torch::kInt64);
  auto changed = idx.clone();
  changed[0][10] = (idx[0][10].item<int64_t>() + 1) % 97;
  auto a = model->forward(idx);
  auto b = model->forward(changed);
  EXPECT_TRUE(torch::allclose(a.narrow(1, 0, 10), b.narrow(1, 0, 10), 0, 1e-6));
  EXPECT_FALSE(torch::allclose(a.narrow(1, 10, 6), b.narrow(1, 10, 6), 0, 1e-4));
}

TEST(GPTModel, ResidualStatesAreTheEmbeddingAndOnePerBlockAndDecodeToTheLogits) {
  torch::manual_seed(2);
  GPT model(smallModel("gelu", false));
  torch::NoGradGuard no_grad;
  auto idx = torch::randint(0, 97, {2, 8}, torch::kInt64);
  std::vector<torch::Tensor> residuals;
  auto logits = model->forward(idx, &residuals);
  ASSERT_EQ(residuals.size(), 4u);  // embedding + 3 blocks
  EXPECT_TRUE(torch::allclose(model->decode(residuals.back()), logits));
}

TEST(Rotary, ScoresDependOnlyOnRelativePosition) {
  Rotary rotary(/*head_dim=*/8, /*max_seq_len=*/32, /*base=*/10000.0);
  torch::manual_seed(3);
  auto q = torch::randn({8});
  auto k = torch::randn({8});
  // Place q at position i and k at position j in a (1,1,T,D) tensor, rotate, take q.k.
  auto score = [&](int64_t i, int64_t j) {
    auto x = torch::zeros({1, 1, 32, 8});
    x[0][0][i] = q;
    auto y = torch::zeros({1, 1, 32, 8});
    y[0][0][j] = k;
    return torch::dot(rotary(x)[0][0][i], rotary(y)[0][0][j]).item<double>();
  };
  EXPECT_NEAR(score(5, 2), score(20, 17), 1e-4);
  EXPECT_NEAR(score(0, 0), torch::dot(q, k).item<double>(), 1e-5);  // position 0 is unrotated
  EXPECT_GT(std::abs(score(5, 2) - score(5, 4)), 1e-3);
}

}  // namespace
}  // namespace deepladder::trainers

namespace deepladder::trainers {
namespace {

TEST(CpuGemm, LinearMatchesTorchLinearInValueAndGradients) {
  torch::manual_seed(4);
  auto x = torch::randn({3, 5, 24}).requires_grad_(true);
  auto w = torch::randn({40, 24}).requires_grad_(true);
  auto upstream = torch::randn({3, 5, 40});
  auto y = fastLinear(x, w);
  (y * upstream).sum().backward();
  auto x_ref = x.detach().clone().requires_grad_(true);
  auto w_ref = w.detach().clone().requires_grad_(true);
  auto y_ref = torch::linear(x_ref, w_ref);
  (y_ref * upstream).sum().backward();
  EXPECT_TRUE(torch::allclose(y, y_ref, 1e-4, 1e-4));
  EXPECT_TRUE(torch::allclose(x.grad(), x_ref.grad(), 1e-4, 1e-4));
  EXPECT_TRUE(torch::allclose(w.grad(), w_ref.grad(), 1e-4, 1e-4));
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(torch::allclose(fastLinear(x, w), y_ref, 1e-4, 1e-4));
  std::cout << "fast CPU gemm compiled: " << fastCpuGemmCompiled() << "\n";
}

}  // namespace
}  // namespace deepladder::trainers
