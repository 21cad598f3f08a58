// Tests of the recurrent recipe whose iterations compose (trainers/squaring): straight-through and
// soft re-entry (value and gradient worked out in closed form), a looped model whose second step
// is exactly its first step on the prompt holding the first read-out, the deep-supervision
// targets of a small modulus by hand, the squaring trainer's optimizer keys (honoured by Muon,
// refused for AdamW), a tiny run of the recipe with its per-step state metrics, and training from
// a directory of tier files. Tiny models, a few seconds.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <set>
#include <variant>

#include "core/errors.h"
#include "core/flop_model.h"
#include "core/ladder/run_plan.h"
#include "core/options/validate.h"
#include "core/squaring/dataset.h"
#include "core/squaring/dataset_io.h"
#include "core/squaring/loop_format.h"
#include "core/squaring/tiers.h"
#include "trainers/run_optimizer.h"
#include "trainers/squaring/deep_supervision.h"
#include "trainers/squaring/reentry.h"
#include "trainers/squaring/squaring_eval.h"
#include "trainers/squaring/squaring_trainer.h"

namespace deepladder::trainers::squaring {
namespace {

RunConfig recurrentRun() {
  RunConfig c;
  c.task = Task::squaring;
  c.model.vocab_size = 17;
  c.model.d_model = 32;
  c.model.n_head = 4;
  c.model.n_layer = 3;
  c.model.seq_len = 13;
  c.model.positions = Positions::learned;
  c.model.attention = AttentionMask::bidirectional;
  c.model.arch = Arch::pcc;
  c.model.core_mode = CoreMode::tied;
  c.model.passes = 1;
  c.train.steps = 3;
  c.train.batch_size = 32;
  c.train.warmup_steps = 1;
  c.train.eval_every = 3;
  c.train.threads = 1;
  c.squaring.tier = "E1";
  c.squaring.iterations = IterationRule::per_t;
  c.squaring.reentry = Reentry::straight_through;
  c.squaring.deep_supervision = 0.5;
  c.squaring.eval_passes = "1,2";
  return c;
}

// The last value of each metric key of a run.
std::map<std::string, double> runLast(const RunConfig& config, const std::string& name) {
  std::map<std::string, double> last;
  TrainerOptions options;
  options.run_id = name;
  options.workdir =
      (std::filesystem::temp_directory_path() / ("deepladder-sqrecur-" + name)).string();
  std::filesystem::remove_all(options.workdir);
  runSquaringTraining(config, options, [&](const protocol::Message& m) {
    if (auto* metric = std::get_if<protocol::Metric>(&m))
      for (const auto& [k, v] : metric->values) last[k] = v;
  });
  std::filesystem::remove_all(options.workdir);
  return last;
}

TEST(SquaringReentry, StraightThroughIsTheReadDigitsForwardAndTheSoftmaxGradientBackward) {
  torch::manual_seed(5);
  const int64_t B = 2, W = 3, V = 17, C = 5;
  const auto logits = torch::randn({B, W, V}, torch::dtype(torch::kFloat64)).requires_grad_();
  const auto embedding = torch::randn({V, C}, torch::dtype(torch::kFloat64));
  const auto g = torch::randn({B, W, C}, torch::dtype(torch::kFloat64));  // upstream gradient
  const auto out = reenterDigits(logits, embedding, Reentry::straight_through);
  // Forward: exactly the embedding rows of the argmax digits.
  const auto digit = logits.narrow(-1, 7, 10).argmax(-1) + 7;  // (B,W) token ids
  EXPECT_TRUE(torch::equal(out.detach(),
                           embedding.index_select(0, digit.reshape({-1})).reshape({B, W, C})));
  (out * g).sum().backward();
  // Backward: d/dz of p(z) E_digits for the ten digit logits, p = softmax(z):
  //   u = E_digits g,  dz = p * (u - <p, u>);  the seven non-digit logits get none.
  const auto p = torch::softmax(logits.detach().narrow(-1, 7, 10), -1);  // (B,W,10)
  const auto u = torch::matmul(g, embedding.narrow(0, 7, 10).t());       // (B,W,10)
  const auto expected = p * (u - (p * u).sum(-1, true));
  EXPECT_TRUE(torch::allclose(logits.grad().narrow(-1, 7, 10), expected, 1e-12, 1e-12));
  EXPECT_EQ(logits.grad().narrow(-1, 0, 7).abs().max().item<double>(), 0.0);

  // Soft: the forward value is p E_digits, with the same gradient.
  const auto soft_logits = logits.detach().clone().requires_grad_();
  const auto soft = reenterDigits(soft_logits, embedding, Reentry::soft);
  EXPECT_TRUE(torch::allclose(soft.detach(), torch::matmul(p, embedding.narrow(0, 7, 10))));
  (soft * g).sum().backward();
  EXPECT_TRUE(torch::allclose(soft_logits.grad().narrow(-1, 7, 10), expected, 1e-12, 1e-12));
}

TEST(SquaringReentry, SecondStepIsTheFirstStepOnThePromptHoldingTheReadOut) {
  torch::manual_seed(11);
  const RunConfig c = recurrentRun();
  const int width = sq::loopDigitWidth(sq::tierPreset("E1"));
  SquaringModel model(c.model, 13, LoopRecipe{Reentry::straight_through, width});
  model->eval();
  std::vector<sq::Example> prompts{{323, 2, 0, 2}, {323, 100, 0, 2}, {323, 45, 0, 2}};
  for (auto& e : prompts) e.z = sq::intermediateSquarings(e.n, e.x, e.t).back();
  const EncodedSet set = encodeSet(prompts, SquaringLayout::separate, 13, torch::kCPU);
  LoopTrace two;
  two.readouts_wanted = true;
  const auto logits = model->forward(set.tokens, set.key_bias, LoopPlan{2, 0}, &two);
  ASSERT_EQ(two.readouts.size(), 2u);
  ASSERT_EQ(two.states.size(), 2u);
  // Read step 1's digits as a number v and ask the model for one step on (N, v).
  const auto digits = two.readouts[0].narrow(-1, 7, 10).argmax(-1);  // (B,W)
  std::vector<sq::Example> next = prompts;
  for (size_t b = 0; b < next.size(); ++b) {
    uint64_t v = 0;
    for (int i = 0; i < width; ++i)
      v = v * 10 + static_cast<uint64_t>(digits[static_cast<int64_t>(b)][i].item<int64_t>());
    next[b].x = v;
    next[b].t = 1;
  }
  const EncodedSet again = encodeSet(next, SquaringLayout::separate, 13, torch::kCPU);
  LoopTrace one;
  one.readouts_wanted = true;
  model->forward(again.tokens, again.key_bias, LoopPlan{1, 0}, &one);
  EXPECT_TRUE(torch::allclose(two.readouts[1], one.readouts[0], 1e-5, 1e-6));
  // The answer frame holds the last step's slot, right-aligned at the prompt's end.
  const auto rows = loopRows(set.tokens, width);
  EXPECT_TRUE(torch::equal(logits, toAnswerFrame(two.readouts[1], rows.answer_index)));

  // Gradient path: a loss on step 2 alone reaches step 1's read-out through the re-entry.
  model->train();
  LoopTrace traced;
  traced.readouts_wanted = true;
  model->forward(set.tokens, set.key_bias, LoopPlan{2, 0}, &traced);
  traced.readouts[0].retain_grad();
  traced.readouts[1].sum().backward();
  ASSERT_TRUE(traced.readouts[0].grad().defined());
  EXPECT_GT(traced.readouts[0].grad().narrow(-1, 7, 10).abs().sum().item<double>(), 0.0);
}

TEST(SquaringDeepSupervision, TargetsAreTheIntermediateSquaringsByHand) {
  // N = 35, x = 2, T = 3: v = 4, 16, 256 mod 35 = 11.
  const std::vector<sq::Example> e{{35, 2, 11, 3}};
  const auto slot = deepSupervisionTargets(e, 3, /*width=*/2, 13, torch::kCPU);  // (3,1,2)
  const auto d = [](int digit) { return int64_t{sq::kDigitZero} + digit; };
  EXPECT_TRUE(
      torch::equal(slot, torch::tensor({d(0), d(4), d(1), d(6), d(1), d(1)}).view({3, 1, 2})));
  // The answer frame: prompt N 3 5 X 2 T 3 (7 tokens); v_k's digits end at position 6.
  const auto frame = deepSupervisionTargets(e, 3, /*width=*/0, 9, torch::kCPU);  // (3,1,9)
  const int64_t I = sq::kIgnoreTarget;
  EXPECT_TRUE(torch::equal(frame[0][0], torch::tensor({I, I, I, I, I, I, d(4), I, I})));
  EXPECT_TRUE(torch::equal(frame[1][0], torch::tensor({I, I, I, I, I, d(1), d(6), I, I})));
  EXPECT_TRUE(torch::equal(frame[2][0], torch::tensor({I, I, I, I, I, d(1), d(1), I, I})));
  EXPECT_THROW(deepSupervisionTargets(e, 4, 2, 13, torch::kCPU), std::invalid_argument);
}

// full_width_answer: the training answer on every place of the slot, leading zeros included
// (the places the answer frame leaves untrained), from the example's own z: no squaring computed.
TEST(SquaringFullWidthAnswer, TargetsAreTheAnswerOnWPlacesWithLeadingZeros) {
  const std::vector<sq::Example> e{{177, 2, 4, 1}, {177, 100, 88, 1}, {177, 52, 17, 3}};
  const auto d = [](int digit) { return int64_t{sq::kDigitZero} + digit; };
  const auto targets = slotAnswerTargets(e, /*width=*/3, torch::kCPU);  // (1,3,3)
  EXPECT_TRUE(torch::equal(
      targets,
      torch::tensor({d(0), d(0), d(4), d(0), d(8), d(8), d(0), d(1), d(7)}).view({1, 3, 3})));
  EXPECT_THROW(slotAnswerTargets({{1009, 2, 1004, 1}}, 3, torch::kCPU), UserError);
}

TEST(SquaringOptimizerKeys, MuonHonoursEveryKeyAndAdamWRefusesMuonsKeys) {
  RunConfig c = recurrentRun();
  c.model.tie_embeddings = false;
  c.train.optimizer = OptimizerKind::muon;
  c.train.lr = 0.02;
  c.train.embed_lr = 0.005;
  c.train.head_lr = 0.003;
  c.train.cautious_weight_decay = true;
  c.train.min_lr_ratio = 0.25;
  c.train.steps = 10;
  EXPECT_NO_THROW(options::validateRunConfig(c, "test"));
  SquaringModel model(c.model, 13, LoopRecipe{Reentry::straight_through, 4});
  auto optimizer = RunOptimizer::create(c.train, *model, model->mlp_kind);
  const auto rates = optimizer->baseRates();
  const std::vector<std::pair<std::string, double>> expected{
      {"muon", 0.02}, {"embedding", 0.005}, {"head", 0.003}, {"gains", 0.02}};
  EXPECT_EQ(rates, expected);
  EXPECT_NEAR(optimizer->learningRate(9), 0.02 * 0.25, 1e-12);  // min_lr_ratio at the last step
  // A step moves the block matrices (Muon) and the embedding (AdamW).
  const auto qkv = model->core->ptr<SquaringBlockImpl>(0)->attn->qkv->weight.detach().clone();
  const auto emb = model->token_embedding->weight.detach().clone();
  const auto set = encodeSet(sq::generateTierDataset(sq::tierPreset("E1"), 0).train,
                             SquaringLayout::separate, 13, torch::kCPU);
  answerLoss(
      model->forward(set.tokens.narrow(0, 0, 16), set.key_bias.narrow(0, 0, 16), LoopPlan{1, 0}),
      set.targets.narrow(0, 0, 16))
      .backward();
  optimizer->step(1);
  EXPECT_FALSE(torch::equal(qkv, model->core->ptr<SquaringBlockImpl>(0)->attn->qkv->weight));
  EXPECT_FALSE(torch::equal(emb, model->token_embedding->weight));

  // AdamW has one rate and plain decay: Muon's keys are refused by name, not ignored.
  for (int key = 0; key < 3; ++key) {
    RunConfig a = recurrentRun();
    a.train.optimizer = OptimizerKind::adamw;
    const char* name = key == 0   ? "train.embed_lr"
                       : key == 1 ? "train.head_lr"
                                  : "train.cautious_weight_decay";
    if (key == 0) a.train.embed_lr = 0.01;
    if (key == 1) a.train.head_lr = 0.01;
    if (key == 2) a.train.cautious_weight_decay = true;
    try {
      options::validateRunConfig(a, "r.toml");
      ADD_FAILURE() << name << " accepted with adamw";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

TEST(SquaringRecurrentRun, TrainsWithMuonAndLogsEveryStepsState) {
  RunConfig c = recurrentRun();
  c.train.optimizer = OptimizerKind::muon;
  const auto m = runLast(c, "muon-reentry");
  ASSERT_TRUE(m.count("train/loss"));
  EXPECT_TRUE(std::isfinite(m.at("train/loss")));
  // E1 trains T = 1..3: three steps; the probe runs the depth ladder's top T = 64.
  for (const char* key : {"loop/state_norm@k=1", "loop/state_norm@k=3", "loop/state_delta@k=2",
                          "loop/probe_norm@k=1", "loop/probe_norm@k=64", "loop/probe_delta@k=64"}) {
    ASSERT_TRUE(m.count(key)) << key;
    EXPECT_TRUE(std::isfinite(m.at(key))) << key;
  }
  EXPECT_FALSE(m.count("loop/state_delta@k=1"));
  EXPECT_TRUE(m.count("score"));
}

TEST(SquaringRecurrentRun, PlainLoopTrainsWithDeepSupervisionOfEveryStep) {
  // Without re-entry the loop keeps its hidden state; every step is decoded in the answer frame.
  RunConfig c = recurrentRun();
  c.squaring.reentry = Reentry::off;
  const auto m = runLast(c, "plain-deep");
  ASSERT_TRUE(m.count("train/loss"));
  EXPECT_TRUE(std::isfinite(m.at("train/loss")));
  for (const char* key : {"loop/state_norm@k=3", "loop/state_delta@k=3", "loop/probe_delta@k=64"}) {
    ASSERT_TRUE(m.count(key)) << key;
    EXPECT_TRUE(std::isfinite(m.at(key))) << key;
  }
}

// The FLOPs a squaring run on `data` reports at its end.
double trainedFlops(const RunConfig& c, const sq::TierDataset& data, const std::string& name) {
  TrainerOptions options;
  options.run_id = name;
  options.workdir =
      (std::filesystem::temp_directory_path() / ("deepladder-sqrecur-" + name)).string();
  std::filesystem::remove_all(options.workdir);
  double flops = 0;
  runSquaringTrainingOn(
      c, options,
      [&](const protocol::Message& m) {
        if (auto* metric = std::get_if<protocol::Metric>(&m))
          flops = std::max(flops, metric->flops);
      },
      data);
  std::filesystem::remove_all(options.workdir);
  return flops;
}

TEST(SquaringRecurrentRun, CountsTheFlopsOfEveryLoopRowStep) {
  // Only T = 2 prompts: every row is 2 steps of the 12-token loop row through prelude, one core
  // pass and coda, whatever rows the batches draw.
  RunConfig c = recurrentRun();
  c.squaring.deep_supervision = 0;
  sq::TierDataset data = sq::generateTierDataset(sq::tierPreset("E1"), 0);
  std::vector<sq::Example> two;
  for (const auto& e : data.train)
    if (e.t == 2) two.push_back(e);
  ASSERT_GE(two.size(), static_cast<size_t>(c.train.batch_size));
  data.train = two;
  const double flops = trainedFlops(c, data, "flops");
  const double per_row = 2.0 * sq::loopRowLength(4) * flopsPerToken(c.model);
  EXPECT_DOUBLE_EQ(flops, static_cast<double>(c.train.steps * c.train.batch_size) * per_row);
}

TEST(SquaringRecurrentRun, PlannedFlopsEqualTheTrainersWhenEveryTIsDrawnEqually) {
  // A batch of 4 prompts of each training T (E1: T = 1, 2, 3) covers the training set each step,
  // so the trainer's per-T, re-entering FLOPs equal the planner's expectation exactly.
  RunConfig c = recurrentRun();
  c.squaring.deep_supervision = 0;
  c.model.passes = 2;
  const sq::TierPreset& tier = sq::tierPreset("E1");
  sq::TierDataset data = sq::generateTierDataset(tier, 0);
  std::vector<sq::Example> balanced;
  for (int64_t t : tier.train_t) {
    int taken = 0;
    for (const auto& e : data.train)
      if (e.t == t && taken < 4) {
        balanced.push_back(e);
        ++taken;
      }
  }
  data.train = balanced;
  c.train.batch_size = static_cast<int64_t>(balanced.size());
  const double flops = trainedFlops(c, data, "planned-flops");
  const double planned = ladder::planRunConfig(c, 0).flops;
  EXPECT_NEAR(flops / planned, 1.0, 1e-12);
  // The plain model's FLOPs per token would count one 13-token row at `passes` passes instead.
  EXPECT_GT(std::abs(planned / (static_cast<double>(c.train.steps * c.train.batch_size *
                                                    c.model.seq_len) *
                                flopsPerToken(c.model)) -
                     1.0),
            0.1);
}

TEST(SquaringRecurrentRun, RefusesRecipesItCannotRun) {
  RunConfig c = recurrentRun();
  c.squaring.iterations = IterationRule::fixed;
  EXPECT_THROW(options::validateRunConfig(c, "t"), UserError);  // a step is one squaring: per_t
  c = recurrentRun();
  c.squaring.layout = SquaringLayout::causal;
  c.model.attention = AttentionMask::causal;
  c.model.seq_len = 64;
  EXPECT_THROW(options::validateRunConfig(c, "t"), UserError);
  c = recurrentRun();
  c.squaring.reentry = Reentry::off;
  c.squaring.backprop_last = 1;
  EXPECT_THROW(options::validateRunConfig(c, "t"), UserError);  // deep supervision trains all
  c = recurrentRun();
  c.squaring.data_dir = "/tmp/somewhere";
  c.squaring.data_seed = 45;
  EXPECT_THROW(options::validateRunConfig(c, "t"), UserError);  // the files fix the data
}

TEST(SquaringDataDir, TrainsOnTheFilesOfADirectoryAndRefusesAnotherTier) {
  const auto dir = std::filesystem::temp_directory_path() / "deepladder-sqrecur-datadir";
  std::filesystem::remove_all(dir);
  const sq::TierPreset& tier = sq::tierPreset("E1");
  sq::writeTierDataset(dir.string(), tier, sq::generateTierDataset(tier, 45));
  RunConfig c = recurrentRun();
  c.squaring.data_dir = dir.string();
  c.train.steps = 1;
  c.train.eval_every = 1;
  EXPECT_NO_THROW(options::validateRunConfig(c, "t"));
  const auto m = runLast(c, "data-dir");
  EXPECT_TRUE(m.count("test/exact"));
  c.squaring.tier = "E2";
  EXPECT_THROW(runLast(c, "data-dir-e2"), UserError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace deepladder::trainers::squaring
