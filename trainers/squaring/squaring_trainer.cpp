// The serial task's training loop (see squaring_trainer.h).
#include "trainers/squaring/squaring_trainer.h"

#include <torch/torch.h>

#include <cassert>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include "core/errors.h"
#include "core/flop_model.h"
#include "core/metric_keys.h"
#include "core/options/validate.h"
#include "core/squaring/dataset.h"
#include "core/squaring/loop_format.h"
#include "core/squaring/run_dataset.h"
#include "core/squaring/squaring_flops.h"
#include "core/squaring/tiers.h"
#include "trainers/checkpoint.h"
#include "trainers/run_optimizer.h"
#include "trainers/run_session.h"
#include "trainers/squaring/deep_supervision.h"
#include "trainers/squaring/iteration_sampler.h"
#include "trainers/squaring/loop_stats.h"
#include "trainers/squaring/reentry.h"
#include "trainers/squaring/squaring_eval.h"
#include "trainers/squaring/squaring_model.h"

namespace deepladder::trainers::squaring {

namespace {

// A generator for one use, seeded by (seed, stream, index): a resumed run draws exactly what the
// uninterrupted run drew at the same index.
std::mt19937_64 indexedGenerator(uint64_t seed, uint32_t stream, int64_t index) {
  std::seed_seq seeds{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), stream,
                      static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32)};
  return std::mt19937_64(seeds);
}
constexpr uint32_t kShuffleStream = 1;      // the row order of epoch i
constexpr uint32_t kProgressiveStream = 2;  // n and k of the progressive loss at step i

// The evaluation sets of a tier, encoded once.
struct EvalSets {
  EncodedSet train, test, ood_t, depth_seen, depth_ood_n;
};

// Epoch after epoch through the training rows, each epoch in its own shuffled order; batch i
// takes rows [i B, (i + 1) B) of that endless sequence (B = batch_rows). A function of (seed,
// rows consumed): a resumed run takes exactly the batches the uninterrupted run took.
class TrainOrder {
 public:
  TrainOrder(int64_t train_rows, int64_t batch_rows, uint64_t seed)
      : train_rows_(train_rows),
        batch_rows_(batch_rows),
        seed_(seed),
        order_(static_cast<size_t>(train_rows)) {}

  std::vector<int64_t> batch(int64_t batch_index) {
    std::vector<int64_t> rows;
    rows.reserve(static_cast<size_t>(batch_rows_));
    for (int64_t i = 0; i < batch_rows_; ++i) rows.push_back(rowAt(batch_index * batch_rows_ + i));
    return rows;
  }

 private:
  int64_t rowAt(int64_t consumed) {
    const int64_t epoch = consumed / train_rows_;
    if (epoch != order_epoch_) {
      std::iota(order_.begin(), order_.end(), 0);
      std::mt19937_64 rng = indexedGenerator(seed_, kShuffleStream, epoch);
      for (size_t i = order_.size(); i > 1; --i)
        std::swap(order_[i - 1], order_[std::uniform_int_distribution<size_t>(0, i - 1)(rng)]);
      order_epoch_ = epoch;
    }
    return order_[static_cast<size_t>(consumed % train_rows_)];
  }

  int64_t train_rows_, batch_rows_;
  uint64_t seed_;
  std::vector<int64_t> order_;
  int64_t order_epoch_ = -1;
};

// "per_t": the batch's answer loss with r = passes x T for each row, run in groups of equal T
// and weighted by their answer tokens (= the mean over the whole batch): the loss, the mean r and
// the FLOPs of the step.
struct PerTStep {
  torch::Tensor loss;
  double mean_r = 0;
  double flops = 0;
};

// One run of the serial task: its data, model and optimizer, and the jobs of its loop (a step's
// loss, logging, evaluation, checkpoints), each a member.
class SquaringRun {
 public:
  SquaringRun(const RunConfig& config, const TrainerOptions& options, const MessageSink& emit,
              const sq::TierDataset& data);
  TrainOutcome train();

 private:
  EncodedSet select(const std::vector<int64_t>& rows) const {
    return selectRows(sets_.train,
                      torch::tensor(rows, torch::TensorOptions().dtype(torch::kInt64)).to(device_));
  }
  // The default test-time depth: model.passes, or passes x T per example for "per_t".
  auto score(const EncodedSet& set) {
    return per_t_ ? scoreExactMatchPerT(model_, set, eval_r_)
                  : scoreExactMatch(model_, set, eval_r_);
  }
  double evaluate();
  void probeDepth();
  void sweepIterations();
  void checkpoint();
  PerTStep perTLoss(const std::vector<int64_t>& rows);
  torch::Tensor progressiveLoss(const std::vector<int64_t>& rows, int64_t r, int64_t& executed);
  double stepFlopsAt(int64_t iterations);

  const TrainConfig& tc_;
  const ModelConfig& mc_;
  const SquaringConfig& qc_;
  const TrainerOptions& options_;
  const MessageSink& emit_;
  const sq::TierDataset& data_;
  RunSession session_;
  const torch::Device device_;
  const int64_t seq_len_;
  const sq::TierPreset& tier_;
  EvalSets sets_;
  const int64_t batch_rows_;
  SquaringModel model_;
  std::unique_ptr<RunOptimizer> optimizer_;
  IterationSampler sampler_;
  const uint64_t seed_;
  const int64_t eval_r_;
  const bool per_t_;
  // Deep supervision mixes each group's answer loss with its steps' read-out losses; every traced
  // step adds to the state statistics of the log interval.
  const double deep_;
  // full_width_answer: the answer loss is the last read-out's, on every place of the x slot.
  const bool full_width_;
  const int deep_width_;
  // Of one prompt's forward and backward pass (core/squaring/squaring_flops.h, which the planner
  // shares).
  const int64_t loop_row_;
  const int64_t tokens_per_step_;
  TrainOrder order_;
  LoopStats train_stats_;
  std::map<int64_t, double> step_flops_at_;  // a step's FLOPs by its executed iteration count
};

SquaringModel modelOn(const torch::Device& device, SquaringModel model) {
  model->to(device);
  return model;
}

SquaringRun::SquaringRun(const RunConfig& config, const TrainerOptions& options,
                         const MessageSink& emit, const sq::TierDataset& data)
    : tc_(config.train),
      mc_(config.model),
      qc_(config.squaring),
      options_(options),
      emit_(emit),
      data_(data),
      session_(config, options, emit),
      device_(tc_.device),
      seq_len_(mc_.seq_len),
      tier_(sq::tierPreset(qc_.tier)),
      sets_{encodeSet(data.train, qc_.layout, seq_len_, device_),
            encodeSet(data.test, qc_.layout, seq_len_, device_),
            encodeSet(data.ood_t, qc_.layout, seq_len_, device_),
            encodeSet(data.depth_seen, qc_.layout, seq_len_, device_),
            encodeSet(data.depth_ood_n, qc_.layout, seq_len_, device_)},
      batch_rows_(std::min(tc_.batch_size, static_cast<int64_t>(data.train.size()))),
      model_(modelOn(device_, SquaringModel(mc_, seq_len_,
                                            LoopRecipe{qc_.reentry, sq::loopDigitWidth(tier_)}))),
      optimizer_(RunOptimizer::create(tc_, *model_, model_->mlp_kind)),
      sampler_(qc_, model_->defaultIterations(), static_cast<uint64_t>(tc_.seed) + 17),
      seed_(static_cast<uint64_t>(tc_.seed)),
      eval_r_(model_->defaultIterations()),
      per_t_(qc_.iterations == IterationRule::per_t && model_->looped()),
      deep_(qc_.deep_supervision),
      full_width_(qc_.full_width_answer && model_->reenters()),
      deep_width_(model_->reenters() ? sq::loopDigitWidth(tier_) : 0),
      loop_row_(model_->reenters() ? sq::loopRowLength(deep_width_) : 0),
      tokens_per_step_(batch_rows_ * seq_len_),
      order_(static_cast<int64_t>(data.train.size()), batch_rows_, seed_) {}

// The state over the whole depth ladder: the seen-moduli cohort's prompts at the ladder's top T,
// run passes x T iterations, their state norms and changes at the ladder's steps.
void SquaringRun::probeDepth() {
  if (data_.depth_seen.empty()) return;
  int64_t top = 0;
  for (const auto& e : data_.depth_seen) top = std::max(top, e.t);
  std::vector<int64_t> rows;
  for (size_t i = 0; i < data_.depth_seen.size(); ++i)
    if (data_.depth_seen[i].t == top) rows.push_back(static_cast<int64_t>(i));
  const EncodedSet probe =
      selectRows(sets_.depth_seen,
                 torch::tensor(rows, torch::TensorOptions().dtype(torch::kInt64)).to(device_));
  torch::NoGradGuard no_grad;
  LoopTrace trace;
  model_->forward(probe.tokens, probe.key_bias, LoopPlan{eval_r_ * top, 0}, &trace);
  LoopStats stats;
  stats.add(trace);
  std::vector<int64_t> ladder;
  for (int64_t t : tier_.depth_ladder)
    if (t <= top) ladder.push_back(t);
  session_.metric(stats.metrics("loop/probe", ladder));
}

double SquaringRun::evaluate() {
  const int64_t step = session_.state().step;
  model_->eval();
  const double val_loss =
      per_t_ ? setLossPerT(model_, sets_.test, eval_r_) : setLoss(model_, sets_.test, eval_r_);
  const auto train_ok = score(sets_.train);
  const auto test_ok = score(sets_.test);
  const auto ood_ok = score(sets_.ood_t);
  const auto seen_ok = score(sets_.depth_seen);
  const auto unseen_ok = score(sets_.depth_ood_n);
  sq::AccuracyMap depth(tier_);
  addToMap(depth, data_.depth_seen, seen_ok);
  addToMap(depth, data_.depth_ood_n, unseen_ok);
  const double test_exact = fractionCorrect(test_ok), ood_exact = fractionCorrect(ood_ok);
  session_.metric(
      {{metric_keys::kValLoss, val_loss},
       {metric_keys::kTrainExact, fractionCorrect(train_ok)},
       {metric_keys::kTestExact, test_exact},
       {metric_keys::kOodExact, ood_exact},
       {metric_keys::kScore, sq::benchmarkScore(test_exact, ood_exact)},
       {metric_keys::kDepthMaxTSeen, static_cast<double>(depth.maxT(tier_.depth_ladder, true))},
       {metric_keys::kDepthMaxTUnseen,
        static_cast<double>(depth.maxT(tier_.depth_ladder, false))}});
  for (const auto& e : cellEvals(step, "squaring/test", data_.test, test_ok)) emit_(e);
  for (const auto& e : cellEvals(step, "squaring/ood_t", data_.ood_t, ood_ok)) emit_(e);
  for (const auto& e : cellEvals(step, "squaring/depth", data_.depth_seen, seen_ok)) emit_(e);
  for (const auto& e : cellEvals(step, "squaring/depth", data_.depth_ood_n, unseen_ok)) emit_(e);
  if (model_->looped()) probeDepth();
  model_->train();
  return val_loss;
}

void SquaringRun::sweepIterations() {
  const int64_t step = session_.state().step;
  model_->eval();
  for (int64_t r : parseEvalPasses(qc_.eval_passes)) {
    const std::string at = "@r=" + std::to_string(r);
    for (const auto& e :
         cellEvals(step, "squaring/test" + at, data_.test, scoreExactMatch(model_, sets_.test, r)))
      emit_(e);
    for (const auto& e : cellEvals(step, "squaring/ood_t" + at, data_.ood_t,
                                   scoreExactMatch(model_, sets_.ood_t, r)))
      emit_(e);
    for (const auto& e : cellEvals(step, "squaring/depth" + at, data_.depth_seen,
                                   scoreExactMatch(model_, sets_.depth_seen, r)))
      emit_(e);
  }
  model_->train();
}

void SquaringRun::checkpoint() {
  session_.state().sampler_position = sampler_.position();
  session_.checkpoint(*model_, *optimizer_);
}

PerTStep SquaringRun::perTLoss(const std::vector<int64_t>& rows) {
  std::map<int64_t, std::vector<int64_t>> by_t;
  for (int64_t row : rows) by_t[data_.train[static_cast<size_t>(row)].t].push_back(row);
  PerTStep out;
  double targets = 0;
  std::vector<std::pair<torch::Tensor, double>> parts;
  for (const auto& [t, group_rows] : by_t) {
    const int64_t r = std::max<int64_t>(1, eval_r_ * t);
    const EncodedSet group = select(group_rows);
    const double count = group.targets.ne(sq::kIgnoreTarget).sum().item<double>();
    LoopTrace trace;
    trace.readouts_wanted = deep_ > 0 || full_width_;
    torch::Tensor loss = answerLoss(
        model_->forward(group.tokens, group.key_bias, LoopPlan{r, qc_.backprop_last}, &trace),
        group.targets);
    std::vector<sq::Example> examples;
    if (deep_ > 0 || full_width_)
      for (int64_t row : group_rows) examples.push_back(data_.train[static_cast<size_t>(row)]);
    if (full_width_)
      loss = deepSupervisionLoss({trace.readouts.back()},
                                 slotAnswerTargets(examples, deep_width_, device_));
    if (deep_ > 0) {
      const auto targets = deepSupervisionTargets(
          examples, static_cast<int64_t>(trace.readouts.size()), deep_width_, seq_len_, device_);
      loss = (1.0 - deep_) * loss + deep_ * deepSupervisionLoss(trace.readouts, targets);
    }
    train_stats_.add(trace);
    parts.emplace_back(loss, count);
    targets += count;
    const double n = static_cast<double>(group_rows.size());
    out.mean_r += n * static_cast<double>(r) / static_cast<double>(rows.size());
    out.flops += n * sq::promptFlops(mc_, loop_row_, r);
  }
  for (const auto& [loss, count] : parts) {
    const torch::Tensor weighted = loss * (count / targets);
    out.loss = out.loss.defined() ? out.loss + weighted : weighted;
  }
  return out;
}

// n iterations without gradient, then k with it (Bansal et al. 2022), on the batch at `r`
// iterations; adds n + k to `executed`.
torch::Tensor SquaringRun::progressiveLoss(const std::vector<int64_t>& rows, int64_t r,
                                           int64_t& executed) {
  std::mt19937_64 rng = indexedGenerator(seed_, kProgressiveStream, session_.state().step);
  const int64_t n = std::uniform_int_distribution<int64_t>(0, r - 1)(rng);
  const int64_t k = std::uniform_int_distribution<int64_t>(1, r - n)(rng);
  const EncodedSet batch = select(rows);
  const auto e = model_->encode(batch.tokens, batch.key_bias);
  torch::Tensor h;
  if (n > 0) {
    torch::NoGradGuard no_grad;
    h = model_->iterate(h, e.detach(), batch.key_bias, 0, n);
  }
  if (h.defined()) h = h.detach();
  h = model_->iterate(h, e, batch.key_bias, n, k);
  executed += n + k;
  return answerLoss(model_->decode(h, e, batch.key_bias), batch.targets);
}

double SquaringRun::stepFlopsAt(int64_t iterations) {
  auto [it, added] = step_flops_at_.try_emplace(iterations, 0.0);
  if (added)
    it->second = static_cast<double>(tokens_per_step_) *
                 sq::flopsPerTokenAtIterations(mc_, static_cast<double>(iterations));
  return it->second;
}

TrainOutcome SquaringRun::train() {
  // --- resume ---------------------------------------------------------------------------------
  // Everything random in a step is a function of (seed, step) or (seed, rows consumed), so the
  // model, the optimizer state and the counters are all a resume needs.
  session_.resume(
      [&](const std::string& workdir, const std::string& hash, std::vector<std::string>* skipped) {
        return loadNewestValidCheckpoint(workdir, hash, *model_, *optimizer_, skipped);
      });
  TrainingState& state = session_.state();
  sampler_.seek(state.step);  // one iteration draw per step

  protocol::Hello hello;
  hello.device = tc_.device;
  hello.params = model_->parameterCount();
  hello.flops_per_token = flopsPerToken(mc_);
  session_.announce(hello);

  // --- training loop --------------------------------------------------------------------------
  const int64_t& step = state.step;
  double last_val_loss = std::nan("");
  model_->train();
  while (!session_.done()) {
    if (session_.stopRequested()) return session_.stopped(last_val_loss);
    const std::vector<int64_t> rows = order_.batch(step);
    int64_t r = sampler_.next();
    int64_t executed = r;
    double step_flops = 0;
    torch::Tensor loss;
    if (per_t_) {
      PerTStep s = perTLoss(rows);
      loss = s.loss;
      step_flops = s.flops;
      r = static_cast<int64_t>(std::lround(s.mean_r));
    } else {
      const EncodedSet batch = select(rows);
      LoopTrace trace;
      loss =
          answerLoss(model_->forward(batch.tokens, batch.key_bias, LoopPlan{r, qc_.backprop_last},
                                     model_->looped() ? &trace : nullptr),
                     batch.targets);
      train_stats_.add(trace);
    }
    if (qc_.progressive_weight >
        0) {  // mixed with the full-depth loss: (1 - w) full + w progressive
      const torch::Tensor progressive = progressiveLoss(rows, r, executed);
      loss = (1.0 - qc_.progressive_weight) * loss + qc_.progressive_weight * progressive;
    }
    const double loss_value = loss.item<double>();
    if (!std::isfinite(loss_value))
      return session_.diverged(loss_value, "; lower train.lr or raise warmup_steps");
    loss.backward();
    const double grad_norm = optimizer_->clipGradNorm(tc_.grad_clip);
    const double lr = optimizer_->learningRate(step);
    optimizer_->step(step);
    optimizer_->zeroGrad();

    session_.countStep(tokens_per_step_);
    state.flops += per_t_ ? step_flops : stepFlopsAt(executed);
    if (session_.due(tc_.log_every)) {
      std::vector<std::pair<std::string, double>> values{
          {metric_keys::kTrainLoss, loss_value},
          {metric_keys::kLearningRate, lr},
          {metric_keys::kGradNorm, grad_norm},
          {metric_keys::kTokensPerSecond, session_.takeTokensPerSecond()},
          {metric_keys::kIterations, static_cast<double>(r)}};
      for (auto& v : train_stats_.metrics("loop/state")) values.push_back(std::move(v));
      train_stats_ = LoopStats();
      session_.metric(std::move(values));
    }
    if (session_.due(tc_.eval_every)) last_val_loss = evaluate();
    if (session_.due(tc_.checkpoint_every)) checkpoint();
  }
  if (std::isnan(last_val_loss)) last_val_loss = evaluate();  // steps = 0
  if (model_->looped()) sweepIterations();

  // --- final model (already saved, unless the run had no steps to take) -----------------------
  const auto saved = listCheckpoints(options_.workdir);
  if (saved.empty() || saved.front().step != step) checkpoint();

  return session_.finished(last_val_loss);
}

}  // namespace

TrainOutcome runSquaringTraining(const RunConfig& config, const TrainerOptions& options,
                                 const MessageSink& emit) {
  assert(options::isValidRunConfig(config));  // validated before it was queued
  return runSquaringTrainingOn(config, options, emit, sq::runDataset(config.squaring));
}

TrainOutcome runSquaringTrainingOn(const RunConfig& config, const TrainerOptions& options,
                                   const MessageSink& emit, const sq::TierDataset& data) {
  assert(options::isValidRunConfig(config));
  if (data.train.empty())
    throw UserError("squaring: the training set is empty; nothing to train on");
  return SquaringRun(config, options, emit, data).train();
}

}  // namespace deepladder::trainers::squaring
