// The growth recipe in the training loop on tiny runs: optimizer = "muon" (Muon for the
// block matrices, AdamW for embedding and head) with the recipe model options starts at exactly
// ln vocab_size and learns; the logged rate is train.lr x the exact WSD x the growth re-warm;
// no clipping with grad_clip = 0; at growth the copied cores start with zero Muon state while the
// trained ones keep theirs; and resuming from a checkpoint before or after growth reproduces the
// uninterrupted loss curve exactly (the Muon + AdamW group state is saved and restored).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <sstream>

#include "core/architecture.h"
#include "core/ladder/ladder_spec.h"
#include "tiny_run.h"
#include "trainers/gpt.h"
#include "trainers/lr_schedule.h"
#include "trainers/run_optimizer.h"
#include "trainers/wsd_schedule.h"

namespace deepladder::trainers {
namespace {

using testing::expectResumeAcrossGrowthReproducesTheCurve;
using testing::makeWorkspace;
using testing::runTiny;
using testing::tinyConfig;

// The recipe at tiny size: no gains, QK-norm, embedding norm, r, m_out, recipe init, SwiGLU,
// untied head, vocabulary padded, Muon + AdamW groups, cautious decay, WSD to zero, no clipping.
RunConfig recipeConfig(const std::filesystem::path& dir, const std::string& arm) {
  RunConfig c = tinyConfig(dir);
  ModelConfig& m = c.model;
  m.n_layer = 3;
  applyArmPreset(arm, m);
  m.vocab_padded = 320;
  m.mlp = MlpKind::swiglu;
  m.tie_embeddings = false;
  m.norm_gain = false;
  m.qk_norm = true;
  m.embed_norm = true;
  m.residual_scale = 0.5;
  m.output_scale = 1.0;
  m.init = InitScheme::recipe;
  m.init_embed_std = 0.1;
  m.init_uniform = 0.35;
  m.grow_fraction = 0.5;
  m.rewarm_steps = 3;
  TrainConfig& t = c.train;
  t.optimizer = OptimizerKind::muon;
  t.lr = 0.02;
  t.embed_lr = 0.02;
  t.head_lr = 0.004;
  t.weight_decay = 0.05;
  t.cautious_weight_decay = true;
  t.beta1 = 0.8;
  t.beta2 = 0.95;
  t.eps = 1e-10;
  t.schedule = Schedule::wsd;
  t.warmup_steps = 2;
  t.decay_fraction = 0.5;
  t.min_lr_ratio = 0;  // as the ladder's recipe section sets it: the decay ends at zero
  t.grad_clip = 0;
  t.steps = 10;
  t.eval_every = 5;
  t.checkpoint_every = 3;
  t.keep_checkpoints = 10;
  return c;
}

TEST(RecipeRun, FirstLossIsLnVocabAndTheRunLearns) {
  const auto dir = makeWorkspace("recipelearn");
  RunConfig config = recipeConfig(dir, "operator_1");
  config.train.steps = 30;
  config.train.eval_every = 30;
  TrainerOptions options;
  options.workdir = (dir / "work").string();
  const auto run = runTiny(config, options);
  ASSERT_EQ(run.outcome.status, TrainStatus::kFinished);
  const auto loss = run.curve("train/loss");
  EXPECT_NEAR(loss.at(1), std::log(256.0), 1e-5);
  EXPECT_LT(run.outcome.final_loss, std::log(256.0) - 1.0);
  std::filesystem::remove_all(dir);
}

TEST(RecipeRun, RateIsWsdTimesRewarmAndGradientsAreNotClipped) {
  const auto dir = makeWorkspace("recipelr");
  RunConfig config = recipeConfig(dir, "untied_grow");  // crossover at update 5, re-warm 3
  TrainerOptions options;
  options.workdir = (dir / "work").string();
  const auto run = runTiny(config, options);
  ASSERT_EQ(run.outcome.status, TrainStatus::kFinished);
  const WsdSchedule wsd{10, 2, 0.5};
  const auto lr = run.curve("lr");  // the metric at step s is update s - 1
  for (int64_t update = 0; update < 10; ++update) {
    const double rewarm = growthRewarmMultiplier(update, 5, 3);
    EXPECT_NEAR(lr.at(update + 1), 0.02 * wsdMultiplier(wsd, update) * rewarm, 1e-15) << update;
  }
  EXPECT_EQ(lr.at(6), 0.0);  // the first update after growth
  // WSD from start max(W, S - D) = 5: 1 - (t - 5) / 4, zero at the last update.
  EXPECT_EQ(scheduleMultiplier(config.train, 5), 1.0);
  EXPECT_DOUBLE_EQ(scheduleMultiplier(config.train, 7), 0.5);
  EXPECT_EQ(scheduleMultiplier(config.train, 9), 0.0);
  // grad_clip = 0: norms above 1 are reported and not clipped (a clip would not change the
  // reported norm, so check the run differs from one clipped at a tiny norm).
  RunConfig clipped = config;
  clipped.train.grad_clip = 1e-3;
  TrainerOptions other = options;
  other.workdir = (dir / "clipped").string();
  const auto clipped_run = runTiny(clipped, other);
  EXPECT_NE(clipped_run.curve("train/loss").at(3), run.curve("train/loss").at(3));
  std::filesystem::remove_all(dir);
}

// One FLOP function: a recipe ladder as `plan` expands it, each run trained by the worker's loop;
// the FLOPs the worker reports when it is done and per token at hello are the planned ones,
// exactly (growing arms included, deep_vanilla_grow's stacking too).
TEST(RecipeRun, PlannedAndWorkerFlopsAreIdentical) {
  const auto dir = makeWorkspace("recipeflops");
  const std::string ladder = R"(
[ladder]
name = "tiny-recipe"
recipe = "growth-paper"
[recipe]
width_per_depth = 8
head_dim = 8
seq_len = 32
vocab = 256
vocab_padded = 256
batch_tokens = 256
hidden_multiple = 8
[data]
kind = "text"
train = ")" + (dir / "train.txt").string() +
                             R"("
val = ")" + (dir / "val.txt").string() +
                             R"("
[train]
eval_every = 100
eval_batches = 1
threads = 1
[sizes]
depths = [3]
[arms.vanilla.recipe]
weight_decay = 0.05
beta1 = 0.8
beta2 = 0.95
eps = 1e-10
warmup = 2
warmdown = 0.5
m_out = 1
r = 0.5
s_emb = 0.1
u = 0.35
embed_lr_mult = 0.5
head_lr_mult = 0.1
g = 0.6
tpp = 0.08
[arms.untied_grow]
model = { alpha = 1.0 }
crossover = { d3 = 0.6 }
recipe = { weight_decay = 0.05, beta1 = 0.8, beta2 = 0.95, eps = 1e-10, warmup = 2, warmdown = 1.0, m_out = 1, r = 0.5, s_emb = 0.1, u = 0.35, embed_lr_mult = 0.5, head_lr_mult = 0.1, g = 0.6, tpp = 0.08 }
[arms.deep_vanilla_grow]
crossover = { d3 = 0.5 }
recipe = { weight_decay = 0.05, beta1 = 0.8, beta2 = 0.95, eps = 1e-10, warmup = 2, warmdown = 0.8, m_out = 1, r = 0.5, s_emb = 0.1, u = 0.35, embed_lr_mult = 0.5, head_lr_mult = 0.1, g = 0.6, tpp = 0.08 }
)";
  const ladder::LadderSpec spec = ladder::parseLadder(ladder, "tiny-recipe.toml");
  ASSERT_EQ(spec.runs.size(), 3u);
  for (const ladder::PlannedRun& run : spec.runs) {
    ASSERT_GE(run.config.train.steps, 5) << run.name;
    TrainerOptions options;
    options.workdir = (dir / run.name).string();
    const auto result = runTiny(run.config, options);
    ASSERT_EQ(result.outcome.status, TrainStatus::kFinished) << run.name;
    EXPECT_EQ(result.all<protocol::Hello>().at(0).flops_per_token, run.flops_per_token) << run.name;
    EXPECT_EQ(result.all<protocol::Done>().at(0).flops, run.flops) << run.name;
    EXPECT_EQ(result.all<protocol::Done>().at(0).tokens, run.tokens) << run.name;
  }
  std::filesystem::remove_all(dir);
}

// Muon momentum of every Muon matrix, by parameter name, read back from the saved state.
std::map<std::string, torch::Tensor> muonMomentumByName(GPT& model, const RunOptimizer& opt) {
  torch::serialize::OutputArchive out;
  opt.save(out, "optim.");
  std::ostringstream bytes;
  out.save_to(bytes);
  const std::string data = bytes.str();
  torch::serialize::InputArchive in;
  in.load_from(data.data(), data.size());
  std::map<std::string, torch::Tensor> result;
  int64_t index = 0;
  for (const auto& item : model->named_parameters()) {
    if (item.value().dim() != 2 || item.key().find("embedding") != std::string::npos) continue;
    torch::Tensor momentum;
    in.read("optim.muon.momentum." + std::to_string(index++), momentum, /*is_buffer=*/true);
    result[item.key()] = momentum;
  }
  return result;
}

TEST(RecipeRun, CopiedCoresStartWithZeroMuonStateAtGrowth) {
  const auto dir = makeWorkspace("recipegrow");
  const RunConfig config = recipeConfig(dir, "untied_grow");
  torch::manual_seed(3);
  GPT model(config.model);
  auto optimizer = RunOptimizer::create(config.train, model);
  const auto idx = torch::randint(0, 256, {2, 16}, torch::kInt64);
  // Zero-initialized heads and output projections: gradients reach q/k/v from the third update.
  for (int64_t step = 0; step < 4; ++step) {
    model->loss(idx, idx).backward();
    optimizer->step(step, 1.0);
    optimizer->zeroGrad();
  }
  EXPECT_EQ(optimizer->grow(model), "K 2 -> 4");
  const auto momentum = muonMomentumByName(model, *optimizer);
  int64_t fresh = 0, kept = 0;
  for (const auto& [name, m] : momentum) {
    const bool copied = name.rfind("cores.2.", 0) == 0 || name.rfind("cores.3.", 0) == 0;
    if (copied) {
      EXPECT_EQ(m.abs().max().item<double>(), 0.0) << name;
      ++fresh;
    } else if (name.rfind("cores.", 0) == 0 && name.find("qkv") != std::string::npos) {
      EXPECT_GT(m.abs().max().item<double>(), 0.0) << name;  // trained cores keep their state
      ++kept;
    }
  }
  EXPECT_EQ(fresh, 2 * 4);  // two copied cores of one block, four matrices each
  EXPECT_EQ(kept, 2);
  std::filesystem::remove_all(dir);
}

TEST(RecipeRun, ResumeBeforeAndAfterGrowthReproducesTheUninterruptedCurve) {
  const auto dir = makeWorkspace("reciperesume");
  const RunConfig config = recipeConfig(dir, "untied_grow");
  expectResumeAcrossGrowthReproducesTheCurve(config, dir);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace deepladder::trainers
