// The fused CPU kernels (trainers/fused_cpu_ops.h) against the plain LibTorch composition they
// replace, at fp32 tolerance: each op alone (values and gradients, odd shapes: T not a multiple
// of the 64-row tile, T = 1, batch 1), then whole models (vanilla, looped, untied, grown) whose
// loss and every parameter gradient must agree with the fused path off, and a short AdamW run
// whose loss curve must agree step by step.
#include "trainers/fused_cpu_ops.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "core/architecture.h"
#include "core/run_config.h"
#include "trainers/adamw.h"
#include "trainers/causal_attention_cpu.h"
#include "trainers/cross_entropy_cpu.h"
#include "trainers/fast_exp.h"
#include "trainers/gpt.h"
#include "trainers/mlp.h"
#include "trainers/rms_norm.h"
#include "trainers/rotary.h"

namespace deepladder::trainers {
namespace {

// Restores the process-wide switch whatever a test does.
struct FusedSwitch {
  explicit FusedSwitch(bool on) { setFusedCpuOpsEnabled(on); }
  ~FusedSwitch() { setFusedCpuOpsEnabled(true); }
};

void expectClose(const torch::Tensor& got, const torch::Tensor& want, const std::string& what,
                 double atol = 2e-5, double rtol = 1e-4) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  const double err = (got - want).abs().max().item<double>();
  const double scale = want.abs().max().item<double>();
  EXPECT_TRUE(torch::allclose(got, want, rtol, atol))
      << what << ": max |diff| " << err << " (max |ref| " << scale << ")";
}

// --- causal attention ---

struct AttentionShape {
  int64_t B, H, T, D;
};

TEST(FusedCausalAttention, MatchesCompositionInValueAndGradientsForOddShapes) {
  const AttentionShape shapes[] = {{2, 3, 64, 16},   // one tile
                                   {1, 2, 100, 8},   // T not a multiple of the tile, batch 1
                                   {1, 1, 1, 4},     // a single token
                                   {2, 2, 130, 64},  // three tiles, the last of 2 rows
                                   {3, 1, 17, 32}};
  for (const auto& s : shapes) {
    const std::string what = "B=" + std::to_string(s.B) + " H=" + std::to_string(s.H) +
                             " T=" + std::to_string(s.T) + " D=" + std::to_string(s.D);
    torch::manual_seed(7);
    auto q = torch::randn({s.B, s.H, s.T, s.D}).requires_grad_();
    auto k = torch::randn({s.B, s.H, s.T, s.D}).requires_grad_();
    auto v = torch::randn({s.B, s.H, s.T, s.D}).requires_grad_();
    auto grad = torch::randn({s.B, s.H, s.T, s.D});
    auto fused = causalAttentionCpu(q, k, v);
    auto fused_grads = torch::autograd::grad({fused}, {q, k, v}, {grad});
    auto reference = causalAttentionComposition(q, k, v, causalBias(s.T));
    auto reference_grads = torch::autograd::grad({reference}, {q, k, v}, {grad});
    expectClose(fused, reference, what + " output");
    expectClose(fused_grads[0], reference_grads[0], what + " dq");
    expectClose(fused_grads[1], reference_grads[1], what + " dk");
    expectClose(fused_grads[2], reference_grads[2], what + " dv");
  }
}

TEST(FusedCausalAttention, AcceptsNonContiguousInputsAndIgnoresFutureKeys) {
  torch::manual_seed(3);
  // (B,T,H,D) transposed to (B,H,T,D): strided, as the model's v is.
  auto base = torch::randn({2, 70, 2, 8});
  auto q = base.transpose(1, 2), k = (base * 0.5).transpose(1, 2), v = base.transpose(1, 2);
  auto out = causalAttentionCpu(q, k, v);
  expectClose(out, causalAttentionComposition(q, k, v, causalBias(70)), "strided");
  // Changing the last position's keys and values leaves every earlier output unchanged.
  auto k2 = k.clone(), v2 = v.clone();
  k2.select(2, 69).normal_();
  v2.select(2, 69).normal_();
  auto out2 = causalAttentionCpu(q, k2, v2);
  EXPECT_TRUE(torch::equal(out.narrow(2, 0, 69), out2.narrow(2, 0, 69)));
  EXPECT_FALSE(torch::equal(out.narrow(2, 69, 1), out2.narrow(2, 69, 1)));
}

TEST(FusedCausalAttention, NanScoresOfADivergedRunComeOutAsNan) {
  // A diverged run's q holds NaN: its rows' outputs are NaN (so the loss is, and the trainer stops
  // with "diverged"), the other rows untouched; the fast exp never converts NaN to an integer.
  EXPECT_TRUE(std::isnan(expFinite(std::nanf(""))));
  EXPECT_NEAR(expFinite(1.0f), std::exp(1.0f), 1e-6);
  EXPECT_TRUE(std::isfinite(expFinite(std::numeric_limits<float>::infinity())));
  torch::manual_seed(4);
  auto q = torch::randn({1, 1, 9, 8}), k = torch::randn({1, 1, 9, 8}),
       v = torch::randn({1, 1, 9, 8});
  q.select(2, 4).fill_(std::nanf(""));
  const auto out = causalAttentionCpu(q, k, v);
  EXPECT_TRUE(out.select(2, 4).isnan().all().item<bool>());
  EXPECT_FALSE(out.narrow(2, 0, 4).isnan().any().item<bool>());
  EXPECT_FALSE(out.narrow(2, 5, 4).isnan().any().item<bool>());
}

// --- RMSNorm ---

TEST(FusedRmsNorm, MatchesCompositionInValueAndGradientsWithAndWithoutGain) {
  const std::vector<std::vector<int64_t>> shapes = {{2, 33, 48}, {1, 1, 8}, {3, 2, 5, 16}, {7, 1}};
  for (const auto& shape : shapes) {
    for (const bool with_gain : {true, false}) {
      const std::string what = "shape " + std::to_string(shape.size()) + "-d, last " +
                               std::to_string(shape.back()) + (with_gain ? ", gain" : ", no gain");
      torch::manual_seed(9);
      RMSNorm norm(shape.back(), 1e-6, with_gain);
      if (with_gain) {
        torch::NoGradGuard no_grad;
        norm->gain.uniform_(0.5, 1.5);
      }
      auto x = (torch::randn(shape) * 3).requires_grad_();
      auto grad = torch::randn(shape);
      std::vector<torch::Tensor> inputs{x};
      if (with_gain) inputs.push_back(norm->gain);
      torch::Tensor fused, reference;
      {
        FusedSwitch on(true);
        fused = norm(x);
      }
      ASSERT_NE(fused.grad_fn()->name().find("RmsNormFunction"), std::string::npos)
          << "the fused path was not taken";
      auto fused_grads = torch::autograd::grad({fused}, inputs, {grad});
      {
        FusedSwitch off(false);
        reference = norm(x);
      }
      ASSERT_EQ(reference.grad_fn()->name().find("RmsNormFunction"), std::string::npos);
      auto reference_grads = torch::autograd::grad({reference}, inputs, {grad});
      expectClose(fused, reference, what + " output");
      for (size_t i = 0; i < inputs.size(); ++i)
        expectClose(fused_grads[i], reference_grads[i], what + (i == 0 ? " dx" : " dgain"));
    }
  }
  // A strided input (the QK-norm's q is a view of the rotary output).
  RMSNorm norm(8);
  auto x = torch::randn({4, 8, 3}).transpose(1, 2);
  FusedSwitch on(true);
  auto fused = norm(x);
  setFusedCpuOpsEnabled(false);
  expectClose(fused, norm(x), "strided");
}

// --- rotary ---

TEST(FusedRotary, MatchesCompositionInValueAndGradientsOnStridedInputs) {
  for (const int64_t T : {1, 13, 64}) {
    torch::manual_seed(4);
    Rotary rotary(/*head_dim=*/8, /*max_seq_len=*/64, /*base=*/10000.0);
    // (2,B,H,T,D) as a permuted view of (B,T,2,H,D): the model's q and k, rotated in one go.
    auto base = torch::randn({3, T, 2, 2, 8}).requires_grad_();
    auto x = base.permute({2, 0, 3, 1, 4});
    auto grad = torch::randn({2, 3, 2, T, 8});
    torch::Tensor fused, reference;
    {
      FusedSwitch on(true);
      fused = rotary(x);
    }
    ASSERT_NE(fused.grad_fn()->name().find("RotaryFunction"), std::string::npos)
        << "the fused path was not taken";
    auto fused_grad = torch::autograd::grad({fused}, {base}, {grad})[0];
    {
      FusedSwitch off(false);
      reference = rotary(x);
    }
    auto reference_grad = torch::autograd::grad({reference}, {base}, {grad})[0];
    expectClose(fused, reference, "T=" + std::to_string(T) + " output");
    expectClose(fused_grad, reference_grad, "T=" + std::to_string(T) + " dx");
  }
}

// --- SwiGLU ---

TEST(FusedSwiglu, MatchesCompositionInValueAndGradientsIncludingLargeGates) {
  for (const int64_t rows : {1, 37}) {
    torch::manual_seed(6);
    MLP mlp(/*d_model=*/16, /*hidden=*/24, MlpKind::swiglu);
    auto x = torch::randn({rows, 3, 16}).requires_grad_();
    {
      torch::NoGradGuard no_grad;
      mlp->up->weight.mul_(8);  // gates up to |a| ~ 30: sigmoid's saturated ends
    }
    auto grad = torch::randn({rows, 3, 16});
    const std::vector<torch::Tensor> inputs{x, mlp->up->weight, mlp->down->weight};
    torch::Tensor fused, reference;
    {
      FusedSwitch on(true);
      fused = mlp(x);
    }
    auto fused_grads = torch::autograd::grad({fused}, inputs, {grad});
    {
      FusedSwitch off(false);
      reference = mlp(x);
    }
    auto reference_grads = torch::autograd::grad({reference}, inputs, {grad});
    const std::string what = "rows " + std::to_string(rows);
    expectClose(fused, reference, what + " output", 1e-4, 1e-4);
    for (size_t i = 0; i < inputs.size(); ++i)
      expectClose(fused_grads[i], reference_grads[i], what + " grad " + std::to_string(i), 1e-4,
                  1e-4);
  }
}

// --- cross-entropy ---

TEST(FusedCrossEntropy, MatchesCompositionOnPaddedScaledLogitsWithIgnoredTargets) {
  for (const double scale : {1.0, 0.25}) {
    for (const int64_t padded : {37, 48}) {
      torch::manual_seed(8);
      const int64_t rows = 19, V = 37;
      auto logits = (torch::randn({rows, padded}) * 4).requires_grad_();
      auto targets = torch::randint(0, V, {rows}, torch::kInt64);
      targets[3] = -100;  // ignored, as torch's default ignore_index
      auto fused = crossEntropyCpu(logits, targets, V, scale);
      auto fused_grad = torch::autograd::grad({fused * 1.7}, {logits})[0];
      auto reference =
          torch::nn::functional::cross_entropy(logits.narrow(1, 0, V) * scale, targets);
      auto reference_grad = torch::autograd::grad({reference * 1.7}, {logits})[0];
      const std::string what =
          "scale " + std::to_string(scale) + " padded " + std::to_string(padded);
      expectClose(fused, reference, what + " loss", 1e-6, 1e-6);
      expectClose(fused_grad, reference_grad, what + " dlogits", 1e-7, 1e-4);
    }
  }
  auto logits = torch::randn({2, 5});
  EXPECT_THROW(crossEntropyCpu(logits, torch::tensor({0, 5}, torch::kInt64), 5, 1.0), c10::Error);
}

// --- whole models ---

ModelConfig tinyModel(const std::string& arm, int64_t seq_len) {
  ModelConfig m;
  m.vocab_size = 61;
  m.d_model = 32;
  m.n_layer = 6;
  m.n_head = 2;
  m.seq_len = seq_len;
  if (!arm.empty()) applyArmPreset(arm, m);
  return m;
}

struct LossAndGrads {
  double loss;
  std::vector<torch::Tensor> grads;
};

LossAndGrads lossAndGrads(GPT& model, const torch::Tensor& idx, const torch::Tensor& targets) {
  for (auto& p : model->parameters()) p.mutable_grad() = torch::Tensor();
  auto loss = model->loss(idx, targets);
  loss.backward();
  LossAndGrads out{loss.item<double>(), {}};
  for (auto& p : model->parameters())
    out.grads.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
  return out;
}

void expectModelPathsAgree(GPT& model, int64_t batch, int64_t T, const std::string& what) {
  const auto tokens = torch::randint(0, model->config.vocab_size, {batch, T + 1}, torch::kInt64);
  const auto idx = tokens.narrow(1, 0, T), targets = tokens.narrow(1, 1, T);
  LossAndGrads fused, reference;
  {
    FusedSwitch on(true);
    fused = lossAndGrads(model, idx, targets);
  }
  {
    FusedSwitch off(false);
    reference = lossAndGrads(model, idx, targets);
  }
  EXPECT_NEAR(fused.loss, reference.loss, 1e-5 * std::abs(reference.loss)) << what;
  const auto names = model->named_parameters();
  ASSERT_EQ(fused.grads.size(), reference.grads.size());
  for (size_t i = 0; i < fused.grads.size(); ++i)
    expectClose(fused.grads[i], reference.grads[i], what + " grad " + names[i].key(), 1e-6, 1e-3);
}

TEST(FusedCpuOpsModel, VanillaLoopedAndUntiedModelsGiveTheReferenceLossAndGradients) {
  for (const std::string arm : {"", "loop_grow", "untied_2"}) {
    torch::manual_seed(11);
    GPT model(tinyModel(arm, 80));
    expectModelPathsAgree(model, /*batch=*/2, /*T=*/80, "arm '" + arm + "'");
    expectModelPathsAgree(model, /*batch=*/1, /*T=*/5, "arm '" + arm + "' batch 1 T 5");
  }
  // The growth recipe's block: QK-norm, no norm gains, SwiGLU, untied head.
  torch::manual_seed(14);
  ModelConfig recipe = tinyModel("", 72);
  recipe.qk_norm = true;
  recipe.norm_gain = false;
  recipe.mlp = MlpKind::swiglu;
  recipe.tie_embeddings = false;
  recipe.vocab_padded = 64;  // padded head rows, cut off before the loss
  recipe.output_scale = 0.5;
  GPT model(recipe);
  expectModelPathsAgree(model, /*batch=*/2, /*T=*/72, "qk-norm swiglu");
}

TEST(FusedCpuOpsModel, GrownModelsGiveTheReferenceLossAndGradients) {
  for (const std::string arm : {"loop_grow", "untied_grow"}) {
    torch::manual_seed(12);
    GPT model(tinyModel(arm, 70));
    model->grow();
    expectModelPathsAgree(model, /*batch=*/2, /*T=*/70, "grown arm '" + arm + "'");
  }
  torch::manual_seed(13);
  ModelConfig deep = tinyModel("", 40);
  deep.n_layer = 3;
  deep.grow_layers = 5;
  GPT vanilla(deep);
  vanilla->grow();
  expectModelPathsAgree(vanilla, /*batch=*/3, /*T=*/40, "grown vanilla");
}

// Restores LibTorch's intra-op thread count whatever a test does.
struct ThreadCount {
  explicit ThreadCount(int n) : previous(at::get_num_threads()) { at::set_num_threads(n); }
  ~ThreadCount() { at::set_num_threads(previous); }
  int previous;
};

// The kernels' parallel loops split over the intra-op threads (they ran on one thread while the
// trainers were built without OpenMP), and the split changes nothing: on three threads every
// model gives the composition's loss and gradients, and the one-thread fused results to rounding.
TEST(FusedCpuOpsThreads, LoopsSplitOverThreadsAndGiveTheOneThreadResults) {
  {
    const ThreadCount three(3);
    EXPECT_EQ(fusedCpuLoopThreads(64), 3);
    EXPECT_EQ(fusedCpuLoopThreads(1), 1);
  }
  ModelConfig recipe = tinyModel("", 72);
  recipe.qk_norm = true;
  recipe.norm_gain = false;
  recipe.mlp = MlpKind::swiglu;
  for (const ModelConfig& config : {tinyModel("", 80), tinyModel("loop_grow", 80), recipe}) {
    torch::manual_seed(21);
    GPT model(config);
    const auto tokens = torch::randint(0, config.vocab_size, {5, 73}, torch::kInt64);
    const auto idx = tokens.narrow(1, 0, 72), targets = tokens.narrow(1, 1, 72);
    const FusedSwitch on(true);
    LossAndGrads one, three;
    {
      const ThreadCount threads(1);
      one = lossAndGrads(model, idx, targets);
    }
    {
      const ThreadCount threads(3);
      three = lossAndGrads(model, idx, targets);
      expectModelPathsAgree(model, /*batch=*/3, /*T=*/72, "three threads");
    }
    EXPECT_NEAR(three.loss, one.loss, 1e-6 * std::abs(one.loss));
    const auto names = model->named_parameters();
    for (size_t i = 0; i < one.grads.size(); ++i)
      expectClose(three.grads[i], one.grads[i], "grad " + names[i].key(), 1e-7, 1e-5);
  }
}

// A short AdamW run, once per path from the same initial weights and batches: the loss curves
// agree to float32 rounding (differences grow slowly with the steps, as any reordering's do).
TEST(FusedCpuOpsModel, ShortRunLossCurveMatchesTheUnfusedPath) {
  const int steps = 30;
  const ModelConfig config = tinyModel("", 64);
  torch::manual_seed(5);
  const auto data = torch::randint(0, config.vocab_size, {steps, 4, 65}, torch::kInt64);
  std::vector<double> curves[2];
  for (const bool fused : {true, false}) {
    FusedSwitch path(fused);
    torch::manual_seed(21);
    GPT model(config);
    AdamW optimizer(model->parameters(), AdamWOptions{});
    for (int s = 0; s < steps; ++s) {
      auto loss = model->loss(data[s].narrow(1, 0, 64), data[s].narrow(1, 1, 64));
      loss.backward();
      optimizer.clipGradNorm(1.0);
      optimizer.step(3e-3);
      optimizer.zeroGrad();
      curves[fused ? 0 : 1].push_back(loss.item<double>());
    }
  }
  double worst = 0;
  for (int s = 0; s < steps; ++s) {
    const double diff = std::abs(curves[0][s] - curves[1][s]);
    worst = std::max(worst, diff);
    EXPECT_LT(diff, 1e-4 * curves[1][s]) << "step " << s;
  }
  EXPECT_LT(curves[0].back(), curves[0].front());  // it trains
  std::printf(
      "fused vs unfused loss curve over %d steps: step 0 |diff| %.3g, max |diff| %.3g (loss "
      "%.4f -> %.4f)\n",
      steps, std::abs(curves[0][0] - curves[1][0]), worst, curves[1].front(), curves[1].back());
}

}  // namespace
}  // namespace deepladder::trainers
