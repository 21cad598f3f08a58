// bf16 autocast (trainers/precision.h, train.precision = "bf16"): the guard switches CPU autocast
// on and restores the previous state; under it the trainer's own linear (fastLinear) yields
// bfloat16 while the residual stream, the norms, the boundary operator and the logits stay
// float32; a bf16 training run keeps its master weights, gradients and optimizer state (AdamW
// moments, Muon momentum) in float32, with a loss close to fp32's but not equal to it. Skipped
// on CPUs without native bfloat16 (the trainer refuses bf16 there).
#include "trainers/precision.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <string>

#include "core/architecture.h"
#include "tiny_run.h"
#include "trainers/block.h"
#include "trainers/cpu_gemm.h"
#include "trainers/gpt.h"

namespace deepladder::trainers {
namespace {

TEST(Precision, GuardTurnsCpuAutocastOnAndRestoresIt) {
  EXPECT_FALSE(autocastEnabled(c10::DeviceType::CPU));
  {
    AutocastGuard outer(Precision::bf16, torch::Device("cpu"));
    EXPECT_TRUE(autocastEnabled(c10::DeviceType::CPU));
    EXPECT_EQ(AutocastState::current().cpu_dtype, at::kBFloat16);
    {
      AutocastGuard inner(Precision::fp32, torch::Device("cpu"));  // fp32 inside: off
      EXPECT_FALSE(autocastEnabled(c10::DeviceType::CPU));
    }
    EXPECT_TRUE(autocastEnabled(c10::DeviceType::CPU));
  }
  EXPECT_FALSE(autocastEnabled(c10::DeviceType::CPU));
  EXPECT_FALSE(autocastEnabled(c10::DeviceType::CUDA));
}

TEST(Precision, MatmulsRunInBf16WhileTheResidualStreamStaysFloat32) {
  if (!cpuSupportsBf16()) GTEST_SKIP() << "this CPU has no native bfloat16";
  torch::manual_seed(1);
  const torch::Tensor x = torch::randn({2, 5, 16});
  const torch::Tensor w = torch::randn({8, 16}, torch::requires_grad());
  ModelConfig m;
  m.vocab_size = 64;
  m.d_model = 16;
  m.n_head = 2;
  m.n_layer = 3;
  m.seq_len = 5;
  applyArmPreset("untied_2", m);
  GPT gpt(m);
  {
    AutocastGuard autocast(Precision::bf16, torch::Device("cpu"));
    EXPECT_EQ(fastLinear(x, w).scalar_type(), torch::kBFloat16);
    Block block(m);
    EXPECT_EQ(block->forward(x).scalar_type(), torch::kFloat32);  // x + bf16 branch: float32
    const torch::Tensor idx = torch::randint(0, 64, {2, 5}, torch::kInt64);
    EXPECT_EQ(gpt->forward(idx).scalar_type(), torch::kFloat32);  // logits cast back
  }
  EXPECT_EQ(fastLinear(x, w).scalar_type(), torch::kFloat32);
}

// Every tensor a checkpoint holds (model parameters and optimizer state) is float32.
void expectCheckpointIsFloat32(const testing::Collected& run, const std::string& what) {
  const auto checkpoints = run.all<protocol::Checkpoint>();
  ASSERT_FALSE(checkpoints.empty()) << what;
  torch::serialize::InputArchive archive;
  archive.load_from(checkpoints.back().path);
  int checked = 0;
  for (const std::string& key : archive.keys()) {
    if (key.rfind("model.", 0) != 0 && key.rfind("optim.", 0) != 0) continue;
    torch::Tensor t;
    if (!archive.try_read(key, t, /*is_buffer=*/true) || !t.is_floating_point()) continue;
    EXPECT_EQ(t.scalar_type(), torch::kFloat32) << what << ": " << key;
    ++checked;
  }
  EXPECT_GT(checked, 4) << what;
}

void expectBf16KeepsMastersFloat32(const std::string& what,
                                   const std::function<void(RunConfig&)>& adapt = {}) {
  const auto dir = testing::makeWorkspace("bf16-" + what);
  RunConfig c = testing::tinyConfig(dir);
  if (adapt) adapt(c);
  c.train.steps = 10;
  c.train.eval_every = 10;
  c.train.checkpoint_every = 0;
  TrainerOptions options;
  options.workdir = (dir / "fp32").string();
  const auto fp32 = testing::runTiny(c, options);
  c.train.precision = Precision::bf16;
  options.workdir = (dir / "bf16").string();
  const auto bf16 = testing::runTiny(c, options);
  ASSERT_EQ(bf16.outcome.status, TrainStatus::kFinished) << what;
  expectCheckpointIsFloat32(bf16, what);
  const auto a = fp32.curve("train/loss"), b = bf16.curve("train/loss");
  ASSERT_EQ(a.size(), b.size());
  double largest = 0;
  for (const auto& [step, loss] : a) largest = std::max(largest, std::abs(b.at(step) - loss));
  EXPECT_GT(largest, 0.0) << what << ": bf16 gave fp32's losses bit for bit: autocast is off";
  EXPECT_LT(largest, 0.05 * a.begin()->second) << what << ": bf16 strays far from fp32";
  std::filesystem::remove_all(dir);
}

TEST(Precision, Bf16RunKeepsWeightsAndAdamWStateFloat32) {
  if (!cpuSupportsBf16()) GTEST_SKIP() << "this CPU has no native bfloat16";
  expectBf16KeepsMastersFloat32("adamw");
}

TEST(Precision, Bf16RunKeepsWeightsAndMuonStateFloat32) {
  if (!cpuSupportsBf16()) GTEST_SKIP() << "this CPU has no native bfloat16";
  expectBf16KeepsMastersFloat32("muon", [](RunConfig& c) {
    c.model.tie_embeddings = false;
    c.model.norm_gain = false;
    c.model.qk_norm = true;
    c.model.mlp = MlpKind::swiglu;
    c.train.optimizer = OptimizerKind::muon;
    c.train.lr = 0.02;
    c.train.grad_clip = 0;
  });
}

}  // namespace
}  // namespace deepladder::trainers
