// The growth paper's numerics (its public training code, qlabs-eng/scaling-exponents,
// models/optimizer.py muon_step_fused, models/layers.py norm, models/transformer.py
// _precompute_rotary), each against a hand computation: Muon's row-norm floor of 1e-7, the
// scalars rounded to the orthogonalized X's dtype, the decay and step terms as the paper forms
// them, RMSNorm's eps = machine epsilon, bf16 rotary tables, and the run options that select them.
#include <gtest/gtest.h>
#include <torch/version.h>

#include <cmath>
#include <cstdio>
#include <optional>

#include "core/ladder/ladder_spec.h"
#include "core/run_config.h"
#include "trainers/boundary_operator.h"
#include "trainers/gpt.h"
#include "trainers/muon.h"
#include "trainers/rms_norm.h"
#include "trainers/rotary.h"

namespace deepladder::trainers {
namespace {

TEST(PaperNumerics, RowNormalizationFloorsTheNormAtOneTenMillionth) {
  // Row 0 has norm 5e-8 (3e-8, 4e-8): divided by the floor 1e-7 it becomes (0.3, 0.4), norm 0.5.
  // Row 1 has norm 2e-7 (above the floor): unit norm, (0.6, 0.8). Row 2 stays zero.
  const auto g = torch::tensor({{3e-8, 4e-8}, {1.2e-7, 1.6e-7}, {0.0, 0.0}}, torch::kFloat64);
  const auto n = normalizeRows(g);
  EXPECT_NEAR(n[0][0].item<double>(), 0.3, 1e-12);
  EXPECT_NEAR(n[0][1].item<double>(), 0.4, 1e-12);
  EXPECT_NEAR(n[1][0].item<double>(), 0.6, 1e-12);
  EXPECT_NEAR(n[1][1].item<double>(), 0.8, 1e-12);
  EXPECT_EQ(n[2][0].item<double>(), 0.0);
}

TEST(PaperNumerics, ScalarsRoundToBfloat16AsAFloat32TensorCastWould) {
  // bf16 keeps 8 significant bits. 0.95 = 1.9 x 2^-1, 1.9 x 128 = 243.2 -> 243: 243/256.
  EXPECT_EQ(roundToBf16(0.95), 0.94921875);
  // 0.02 = 1.28 x 2^-6, 1.28 x 128 = 163.84 -> 164: 164/128/64.
  EXPECT_EQ(roundToBf16(0.02), 0.02001953125);
  // 0.1 = 1.6 x 2^-4, 204.8 -> 205: 205/128/16.
  EXPECT_EQ(roundToBf16(0.1), 0.10009765625);
  EXPECT_EQ(roundToBf16(0.5), 0.5);  // exact values stay
}

TEST(PaperNumerics, UpdateFormsTheStepAndDecayTermsAsThePaper) {
  // W = (1, -2), X = (0.3125, 0.5), eta = 0.02, wd = 0.1, cautious, bf16 update.
  // eta_b = 0.02001953125, wd_b = 0.10009765625, (eta wd)_b = bf16(0.0020039081573486328) =
  // 1.026 x 2^-9 -> 131/128 x 2^-9 = 0.0019989013671875.
  // eta_b X = (0.006256103515625, 0.010009765625), both exact in bf16 (205/128 x 2^-8, 41 x 2^-12).
  // Mask [X W >= 0] = (1, 0). W' = (1 - (0.006256103515625 + 0.0019989013671875), -2 -
  // 0.01000976...)
  torch::Tensor w = torch::tensor({{1.0f, -2.0f}});
  const torch::Tensor x = torch::tensor({{0.3125f, 0.5f}});
  applyPaperUpdate(w, x, 0.02, 0.1, /*cautious=*/true, torch::kBFloat16);
  const float expected0 = 1.0f - (0.006256103515625f + 0.0019989013671875f * 1.0f);
  const float expected1 = -2.0f - (0.010009765625f + 0.0f);
  EXPECT_EQ(w[0][0].item<float>(), expected0);
  EXPECT_EQ(w[0][1].item<float>(), expected1);
  // The exact form differs: W - eta (X + wd W mask) with unrounded eta and wd.
  torch::Tensor exact = torch::tensor({{1.0f, -2.0f}});
  applyCautiousUpdate(exact, x, 0.02, 0.1);
  EXPECT_NE(exact[0][0].item<float>(), expected0);
}

TEST(PaperNumerics, VarianceScaleIsRoundedAndAppliedInTheUpdateDtype) {
  // One 2x2 matrix X = diag-free [[1, 0], [0, 0.5]] after orthogonalization (rows >= cols: one
  // variance per row). m = mean over columns of X^2 = (0.5, 0.125). From V = 0 with beta = 0.95:
  // V = 0.05 m = (0.025, 0.00625); 1/sqrt(V) = (6.3245553, 12.649111); ||X||_F = sqrt(1.25);
  // ||X / sqrt(V)||_F = sqrt(1 x 40 + 0.25 x 160) = sqrt(80). scale = (1/sqrt V) sqrt(1.25/80)
  // = (0.790569, 1.581139). Rounded to bf16: 0.7890625 (101/128), 1.578125 (202/128). X times
  // those: 0.7890625 and 0.5 x 1.578125 = 0.7890625, exact in bf16.
  const torch::Tensor x = torch::tensor({{{1.0f, 0.0f}, {0.0f, 0.5f}}});
  torch::Tensor variance = torch::zeros({1, 2, 1});
  const torch::Tensor paper = normalizeVariance(x, variance, 0.95, torch::kBFloat16);
  EXPECT_EQ(paper[0][0][0].item<float>(), 0.7890625f);
  EXPECT_EQ(paper[0][1][1].item<float>(), 0.7890625f);
  torch::Tensor variance_exact = torch::zeros({1, 2, 1});
  const torch::Tensor exact = normalizeVariance(x, variance_exact, 0.95);
  EXPECT_NEAR(exact[0][0][0].item<float>(), 0.7905694f, 1e-6);
}

TEST(PaperNumerics, MuonOptionsFollowTheRunOptions) {
  RunConfig config;
  EXPECT_EQ(config.train.muon_orthogonalization, TableDtype::bf16);
  EXPECT_FALSE(config.train.muon_exact_scalars);
  // Two Muon steps with fp32 orthogonalization agree bit for bit with themselves, and differ from
  // bf16's.
  auto run = [](torch::Dtype dtype, bool exact) {
    torch::manual_seed(3);
    torch::Tensor w = torch::randn({8, 4}).requires_grad_(true);
    MuonOptions options;
    options.orthogonalization_dtype = dtype;
    options.exact_scalars = exact;
    options.weight_decay = 0.1;
    Muon muon({{w, 1}}, options);
    for (int step = 0; step < 2; ++step) {
      w.mutable_grad() = torch::randn({8, 4});
      muon.step(0.02, muonMomentum(step));
    }
    return w.detach().clone();
  };
  EXPECT_TRUE(torch::equal(run(torch::kFloat32, false), run(torch::kFloat32, false)));
  EXPECT_FALSE(torch::equal(run(torch::kFloat32, false), run(torch::kBFloat16, false)));
  EXPECT_FALSE(torch::equal(run(torch::kBFloat16, true), run(torch::kBFloat16, false)));
}

TEST(PaperNumerics, NormEpsIsTheMachineEpsilonOfTheComputeType) {
  EXPECT_EQ(normEpsilon(0.0, torch::kFloat32), 1.1920928955078125e-07);   // 2^-23
  EXPECT_EQ(normEpsilon(0.0, torch::kBFloat16), 1.1920928955078125e-07);  // computed in float32
  EXPECT_EQ(normEpsilon(0.0, torch::kFloat64), 2.220446049250313e-16);    // 2^-52
  EXPECT_EQ(normEpsilon(1e-6, torch::kFloat32), 1e-6);
  // x = (1e-4, 1e-4): mean x^2 = 1e-8, y = 1e-4 / sqrt(1e-8 + 2^-23) = 0.278203...
  const torch::Tensor x = torch::full({1, 2}, 1e-4f);
  const double by_hand = 1e-4 / std::sqrt(1e-8 + 1.1920928955078125e-07);
  EXPECT_NEAR(RMSNorm(2, 0.0, false)(x)[0][0].item<float>(), by_hand, 1e-6);
  EXPECT_NEAR(parameterFreeRmsNorm(x, 0.0)[0][0].item<float>(), by_hand, 1e-6);
  EXPECT_NEAR(boundaryOperator(x, x, 0.0, 0.0)[0][0].item<float>(), by_hand, 1e-6);
  // Before: eps 1e-6 gives 1e-4 / sqrt(1.01e-6) = 0.0995037.
  EXPECT_NEAR(RMSNorm(2, 1e-6, false)(x)[0][0].item<float>(), 1e-4 / std::sqrt(1.01e-6), 1e-6);
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  // What torch's own rms_norm does with eps=None, float32 and bfloat16 alike.
  const torch::Tensor ours = RMSNorm(2, 0.0, false)(x);
  EXPECT_TRUE(torch::allclose(at::rms_norm(x, {2}, std::nullopt, std::nullopt), ours, 1e-6, 0));
  const torch::Tensor xb = x.to(torch::kBFloat16);
  const torch::Tensor torch_b = at::rms_norm(xb, {2}, std::nullopt, std::nullopt).to(torch::kFloat);
  EXPECT_NEAR(torch_b[0][0].item<float>(), by_hand, 2e-3);  // bf16 output rounding
#endif
}

TEST(PaperNumerics, EmbeddingNormAtVanillaInitIsSmallerWithTheOldEps) {
  // The model of growth-fineweb.toml's smallest vanilla rung, built twice from one seed: with the
  // paper's eps (norm_eps = 0, the machine epsilon) and with the old 1e-6. Its embedding rows are
  // N(0, s_emb^2) with s_emb = 0.00707107 (mean square 5e-5), so the old eps adds 2% under the
  // root of the embedding norm, the machine epsilon 0.24%: the output is sqrt((ms + 2^-23) / (ms +
  // 1e-6)) = 0.99126 times as large with the old eps, 0.87% smaller (docs/ladders.md quotes this).
  const ladder::LadderSpec spec = ladder::loadLadder(std::string(DEEPLADDER_SOURCE_DIR) +
                                                     "/resources/ladders/growth-fineweb.toml");
  const ladder::PlannedRun* vanilla = nullptr;
  for (const auto& run : spec.runs)
    if (run.arm == "vanilla" &&
        (!vanilla || run.config.model.d_model < vanilla->config.model.d_model))
      vanilla = &run;
  ASSERT_NE(vanilla, nullptr);
  ModelConfig config = vanilla->config.model;
  ASSERT_TRUE(config.embed_norm);
  ASSERT_EQ(config.norm_eps, 0.0);
  EXPECT_EQ(config.init_embed_std, 0.00707107);
  // 4096 embedding rows instead of the GPT-2 vocabulary: the same init, a fraction of the memory.
  config.vocab_size = 4096;
  config.vocab_padded = 0;
  config.n_layer = 1;
  auto embedded = [&](double eps) {
    ModelConfig c = config;
    c.norm_eps = eps;
    torch::manual_seed(5);
    GPT model(c);
    torch::NoGradGuard no_grad;
    const torch::Tensor idx = torch::arange(c.vocab_size).view({1, -1});  // (1, V)
    return std::make_pair(model->embed(idx)[0], model->token_embedding->weight.detach().clone());
  };
  const auto [paper, rows] = embedded(0.0);
  const auto [old, same_rows] = embedded(1e-6);
  ASSERT_TRUE(torch::equal(rows, same_rows));
  const torch::Tensor ms = rows.to(torch::kFloat64).square().mean({-1});  // (V)
  const torch::Tensor ratio = old.to(torch::kFloat64).norm(2, {-1}) /     // (V)
                              paper.to(torch::kFloat64).norm(2, {-1});
  // Row by row, the production norms give exactly the formula's ratio (float32 rounding).
  const torch::Tensor by_hand = ((ms + 1.1920928955078125e-07) / (ms + 1e-6)).sqrt();
  EXPECT_LT((ratio - by_hand).abs().max().item<double>(), 2e-6);
  // On average over the rows: 0.87% smaller.
  EXPECT_NEAR(1.0 - ratio.mean().item<double>(), 0.0087, 3e-4);
}

TEST(PaperNumerics, PaperScalarsFollowAFloat32Orthogonalization) {
  // The paper casts its scalars to the orthogonalized X's dtype (lr_t.to(g.dtype)): orthogonalizing
  // in float32, they are float32 scalars, and one Muon step with the paper's rounding must land on
  // the float64 reference within float32 noise (the deviation of the exact-scalar float32 step).
  // Rounding them to bfloat16 instead (what scalar_dtype = bf16 asks for explicitly, and what
  // deepladder did for every dtype before) moves the weights by far more than that noise.
  auto one_step = [](torch::Dtype dtype, bool exact, std::optional<torch::ScalarType> scalars) {
    torch::manual_seed(11);
    const torch::Tensor w0 = torch::randn({64, 32}, torch::kFloat64) * 0.05;  // (64, 32)
    const torch::Tensor g = torch::randn({64, 32}, torch::kFloat64);          // (64, 32)
    torch::Tensor w = w0.to(dtype).clone().requires_grad_(true);
    MuonOptions options;
    options.orthogonalization_dtype = dtype;
    options.exact_scalars = exact;
    options.scalar_dtype = scalars;
    options.weight_decay = 0.1;
    Muon muon({{w, 1}}, options);
    w.mutable_grad() = g.to(dtype);
    muon.step(0.0237, muonMomentum(0));
    return w.detach().to(torch::kFloat64);
  };
  const torch::Tensor reference = one_step(torch::kFloat64, true, std::nullopt);
  auto deviation = [&](const torch::Tensor& w) {
    return (w - reference).abs().max().item<double>();
  };
  const double noise = deviation(one_step(torch::kFloat32, true, std::nullopt));
  const double paper = deviation(one_step(torch::kFloat32, false, std::nullopt));
  const double bf16_scalars = deviation(one_step(torch::kFloat32, false, torch::kBFloat16));
  std::printf(
      "one Muon step vs float64: exact float32 %.3g, paper float32 %.3g, bf16 scalars %.3g\n",
      noise, paper, bf16_scalars);
  EXPECT_GT(noise, 0.0);
  EXPECT_LT(noise, 1e-5);
  EXPECT_LE(paper, 4.0 * noise);
  EXPECT_GT(bf16_scalars, 50.0 * noise);
}

TEST(PaperNumerics, RotaryTablesInBfloat16AsThePaperComputesThem) {
  // head_dim 4, base 10000: inv_freq = (1, 1/100). Position 3: angles (3, 0.03).
  // cos 3 = -0.9899925 = -1.979985 x 2^-1, x 128 = 253.44 -> 253: -253/256 = -0.98828125.
  // sin 3 = 0.14112001 = 1.12896 x 2^-3, x 128 = 144.507 -> 145: 145/1024 = 0.1416015625.
  Rotary paper(4, 8, 10000.0, /*bf16_tables=*/true);
  EXPECT_EQ(paper->cos[3][0].item<float>(), -0.98828125f);
  EXPECT_EQ(paper->cos[3][2].item<float>(), -0.98828125f);
  EXPECT_EQ(paper->sin[3][2].item<float>(), 0.1416015625f);  // second half: +sin
  EXPECT_EQ(paper->sin[3][0].item<float>(), -0.1416015625f);
  Rotary before(4, 8, 10000.0);
  EXPECT_EQ(before->cos[3][0].item<float>(), static_cast<float>(std::cos(3.0)));
  // The model option selects them.
  ModelConfig c;
  EXPECT_EQ(c.rotary_tables, TableDtype::bf16);
  GPT model(c);
  const auto& block = *model->blocks[0]->as<BlockImpl>();
  const auto& table = block.attn->rotary->cos;
  EXPECT_TRUE(torch::equal(table, table.to(torch::kBFloat16).to(torch::kFloat32)));
  c.rotary_tables = TableDtype::fp32;
  GPT fp32_model(c);
  const auto& fp32_table = fp32_model->blocks[0]->as<BlockImpl>()->attn->rotary->cos;
  EXPECT_FALSE(torch::equal(fp32_table, fp32_table.to(torch::kBFloat16).to(torch::kFloat32)));
}

TEST(PaperNumerics, NewOptionsAtTheirDefaultsLeaveTheConfigHashAsItWas) {
  // The hash of a default config before these options existed: the hello line of main's worker
  // (commit 7ba4f09) for an empty run file.
  EXPECT_EQ(configHash(RunConfig{}), "2589b292afa9b035");
  RunConfig changed;
  changed.model.norm_eps = 1e-6;
  EXPECT_NE(configHash(changed), configHash(RunConfig{}));
}

TEST(PaperNumerics, RecipeLaddersRunThePaperNumerics) {
  for (const char* file : {"growth-fineweb.toml", "quick.toml", "growth-cpu-1h.toml"}) {
    SCOPED_TRACE(file);
    const ladder::LadderSpec spec =
        ladder::loadLadder(std::string(DEEPLADDER_SOURCE_DIR) + "/resources/ladders/" + file);
    ASSERT_FALSE(spec.runs.empty());
    for (const auto& run : spec.runs) {
      EXPECT_EQ(run.config.model.norm_eps, 0.0);
      EXPECT_EQ(run.config.model.rotary_tables, TableDtype::bf16);
      EXPECT_EQ(run.config.train.muon_orthogonalization, TableDtype::bf16);
      EXPECT_FALSE(run.config.train.muon_exact_scalars);
      EXPECT_EQ(run.config.train.muon_row_norm_floor, 1e-7);
    }
  }
}

}  // namespace
}  // namespace deepladder::trainers
