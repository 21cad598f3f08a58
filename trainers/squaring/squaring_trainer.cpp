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
  const TrainConfig& tc = config.train;
  const ModelConfig& mc = config.model;
  const SquaringConfig& qc = config.squaring;
  RunSession session(config, options, emit);
  const torch::Device device(tc.device);
  const int64_t seq_len = mc.seq_len;
  const sq::Layout layout =
      qc.layout == SquaringLayout::causal ? sq::Layout::kCausal : sq::Layout::kSeparate;

  // --- data ---------------------------------------------------------------------------------
  const sq::TierPreset& tier = sq::tierPreset(qc.tier);
  EvalSets sets{encodeSet(data.train, layout, seq_len, device),
                encodeSet(data.test, layout, seq_len, device),
                encodeSet(data.ood_t, layout, seq_len, device),
                encodeSet(data.depth_seen, layout, seq_len, device),
                encodeSet(data.depth_ood_n, layout, seq_len, device)};
  const int64_t train_rows = static_cast<int64_t>(data.train.size());
  const int64_t batch_rows = std::min(tc.batch_size, train_rows);

  // --- model and optimizer --------------------------------------------------------------------
  SquaringModel model(mc, seq_len, LoopRecipe{qc.reentry, sq::loopDigitWidth(tier)});
  model->to(device);
  const std::unique_ptr<RunOptimizer> optimizer = RunOptimizer::create(tc, *model, model->mlp_kind);
  IterationSampler sampler(qc, model->defaultIterations(), static_cast<uint64_t>(tc.seed) + 17);
  const uint64_t seed = static_cast<uint64_t>(tc.seed);
  const int64_t eval_r = model->defaultIterations();
  const bool per_t = qc.iterations == IterationRule::per_t && model->looped();

  // --- resume ---------------------------------------------------------------------------------
  // Everything random in a step is a function of (seed, step) or (seed, rows consumed), so the
  // model, the optimizer state and the counters are all a resume needs.
  session.resume(
      [&](const std::string& workdir, const std::string& hash, std::vector<std::string>* skipped) {
        return loadNewestValidCheckpoint(workdir, hash, *model, *optimizer, skipped);
      });
  TrainingState& state = session.state();
  sampler.seek(state.step);  // one iteration draw per step

  protocol::Hello hello;
  hello.device = tc.device;
  hello.params = model->parameterCount();
  hello.flops_per_token = flopsPerToken(mc);
  session.announce(hello);

  const int64_t& step = state.step;

  // --- evaluation -----------------------------------------------------------------------------
  // The state over the whole depth ladder: the seen-moduli cohort's prompts at the ladder's top
  // T, run passes x T iterations, their state norms and changes at the ladder's steps.
  auto probeDepth = [&]() {
    if (data.depth_seen.empty()) return;
    int64_t top = 0;
    for (const auto& e : data.depth_seen) top = std::max(top, e.t);
    std::vector<int64_t> rows;
    for (size_t i = 0; i < data.depth_seen.size(); ++i)
      if (data.depth_seen[i].t == top) rows.push_back(static_cast<int64_t>(i));
    const EncodedSet probe =
        selectRows(sets.depth_seen,
                   torch::tensor(rows, torch::TensorOptions().dtype(torch::kInt64)).to(device));
    torch::NoGradGuard no_grad;
    LoopTrace trace;
    model->forward(probe.tokens, probe.key_bias, LoopPlan{eval_r * top, 0}, &trace);
    LoopStats stats;
    stats.add(trace);
    std::vector<int64_t> ladder;
    for (int64_t t : tier.depth_ladder)
      if (t <= top) ladder.push_back(t);
    session.metric(stats.metrics("loop/probe", ladder));
  };
  // The default test-time depth: model.passes, or passes x T per example for "per_t".
  auto score = [&](const EncodedSet& set) {
    return per_t ? scoreExactMatchPerT(model, set, eval_r) : scoreExactMatch(model, set, eval_r);
  };
  auto evaluate = [&]() -> double {
    model->eval();
    const double val_loss =
        per_t ? setLossPerT(model, sets.test, eval_r) : setLoss(model, sets.test, eval_r);
    const auto train_ok = score(sets.train);
    const auto test_ok = score(sets.test);
    const auto ood_ok = score(sets.ood_t);
    const auto seen_ok = score(sets.depth_seen);
    const auto unseen_ok = score(sets.depth_ood_n);
    sq::AccuracyMap depth(tier);
    addToMap(depth, data.depth_seen, seen_ok);
    addToMap(depth, data.depth_ood_n, unseen_ok);
    const double test_exact = fractionCorrect(test_ok), ood_exact = fractionCorrect(ood_ok);
    session.metric(
        {{metric_keys::kValLoss, val_loss},
         {metric_keys::kTrainExact, fractionCorrect(train_ok)},
         {metric_keys::kTestExact, test_exact},
         {metric_keys::kOodExact, ood_exact},
         {metric_keys::kScore, sq::benchmarkScore(test_exact, ood_exact)},
         {metric_keys::kDepthMaxTSeen, static_cast<double>(depth.maxT(tier.depth_ladder, true))},
         {metric_keys::kDepthMaxTUnseen,
          static_cast<double>(depth.maxT(tier.depth_ladder, false))}});
    for (const auto& e : cellEvals(step, "squaring/test", data.test, test_ok)) emit(e);
    for (const auto& e : cellEvals(step, "squaring/ood_t", data.ood_t, ood_ok)) emit(e);
    for (const auto& e : cellEvals(step, "squaring/depth", data.depth_seen, seen_ok)) emit(e);
    for (const auto& e : cellEvals(step, "squaring/depth", data.depth_ood_n, unseen_ok)) emit(e);
    if (model->looped()) probeDepth();
    model->train();
    return val_loss;
  };
  auto sweepIterations = [&]() {
    model->eval();
    for (int64_t r : parseEvalPasses(qc.eval_passes)) {
      const std::string at = "@r=" + std::to_string(r);
      for (const auto& e :
           cellEvals(step, "squaring/test" + at, data.test, scoreExactMatch(model, sets.test, r)))
        emit(e);
      for (const auto& e : cellEvals(step, "squaring/ood_t" + at, data.ood_t,
                                     scoreExactMatch(model, sets.ood_t, r)))
        emit(e);
      for (const auto& e : cellEvals(step, "squaring/depth" + at, data.depth_seen,
                                     scoreExactMatch(model, sets.depth_seen, r)))
        emit(e);
    }
    model->train();
  };

  auto checkpoint = [&]() {
    state.sampler_position = sampler.position();
    session.checkpoint(*model, *optimizer);
  };

  // --- training loop --------------------------------------------------------------------------
  // Epoch after epoch through the training rows, each epoch in its own shuffled order; batch i
  // takes rows [i B, (i + 1) B) of that endless sequence (B = batch_rows).
  std::vector<int64_t> order(static_cast<size_t>(train_rows));
  int64_t order_epoch = -1;
  auto rowAt = [&](int64_t consumed) {
    const int64_t epoch = consumed / train_rows;
    if (epoch != order_epoch) {
      std::iota(order.begin(), order.end(), 0);
      std::mt19937_64 rng = indexedGenerator(seed, kShuffleStream, epoch);
      for (size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[std::uniform_int_distribution<size_t>(0, i - 1)(rng)]);
      order_epoch = epoch;
    }
    return order[static_cast<size_t>(consumed % train_rows)];
  };
  auto batchRows = [&](int64_t batch_index) {
    std::vector<int64_t> rows;
    rows.reserve(static_cast<size_t>(batch_rows));
    for (int64_t i = 0; i < batch_rows; ++i) rows.push_back(rowAt(batch_index * batch_rows + i));
    return rows;
  };
  auto select = [&](const std::vector<int64_t>& rows) {
    return selectRows(sets.train,
                      torch::tensor(rows, torch::TensorOptions().dtype(torch::kInt64)).to(device));
  };
  // "per_t": the batch's answer loss with r = passes x T for each row, run in groups of equal T
  // and weighted by their answer tokens (= the mean over the whole batch). Returns the loss, the
  // mean r and the FLOPs of the step.
  struct PerTStep {
    torch::Tensor loss;
    double mean_r = 0;
    double flops = 0;
  };
  // Deep supervision mixes each group's answer loss with its steps' read-out losses; every traced
  // step adds to the state statistics of the log interval.
  const double deep = qc.deep_supervision;
  const int deep_width = model->reenters() ? sq::loopDigitWidth(tier) : 0;
  LoopStats train_stats;
  // FLOPs of one prompt's forward and backward pass at r iterations
  // (core/squaring/squaring_flops.h, which the planner shares).
  const int64_t loop_row = model->reenters() ? sq::loopRowLength(deep_width) : 0;
  auto perTLoss = [&](const std::vector<int64_t>& rows) {
    std::map<int64_t, std::vector<int64_t>> by_t;
    for (int64_t row : rows) by_t[data.train[static_cast<size_t>(row)].t].push_back(row);
    PerTStep out;
    double targets = 0;
    std::vector<std::pair<torch::Tensor, double>> parts;
    for (const auto& [t, group_rows] : by_t) {
      const int64_t r = std::max<int64_t>(1, eval_r * t);
      const EncodedSet group = select(group_rows);
      const double count = group.targets.ne(sq::kIgnoreTarget).sum().item<double>();
      LoopTrace trace;
      trace.readouts_wanted = deep > 0;
      torch::Tensor loss = answerLoss(
          model->forward(group.tokens, group.key_bias, LoopPlan{r, qc.backprop_last}, &trace),
          group.targets);
      if (deep > 0) {
        std::vector<sq::Example> examples;
        for (int64_t row : group_rows) examples.push_back(data.train[static_cast<size_t>(row)]);
        const auto targets = deepSupervisionTargets(
            examples, static_cast<int64_t>(trace.readouts.size()), deep_width, seq_len, device);
        loss = (1.0 - deep) * loss + deep * deepSupervisionLoss(trace.readouts, targets);
      }
      train_stats.add(trace);
      parts.emplace_back(loss, count);
      targets += count;
      const double n = static_cast<double>(group_rows.size());
      out.mean_r += n * static_cast<double>(r) / static_cast<double>(rows.size());
      out.flops += n * sq::promptFlops(mc, loop_row, r);
    }
    for (const auto& [loss, count] : parts) {
      const torch::Tensor weighted = loss * (count / targets);
      out.loss = out.loss.defined() ? out.loss + weighted : weighted;
    }
    return out;
  };

  double last_val_loss = std::nan("");
  const int64_t tokens_per_step = batch_rows * seq_len;
  // FLOPs of one step by its executed iteration count (a handful of distinct counts per run).
  std::map<int64_t, double> step_flops_at;
  auto stepFlopsAt = [&](int64_t iterations) {
    auto [it, added] = step_flops_at.try_emplace(iterations, 0.0);
    if (added)
      it->second = static_cast<double>(tokens_per_step) *
                   sq::flopsPerTokenAtIterations(mc, static_cast<double>(iterations));
    return it->second;
  };
  model->train();
  while (!session.done()) {
    if (session.stopRequested()) return session.stopped(last_val_loss);
    const std::vector<int64_t> rows = batchRows(step);
    int64_t r = sampler.next();
    int64_t executed = r;
    double step_flops = 0;
    torch::Tensor loss;
    if (per_t) {
      PerTStep s = perTLoss(rows);
      loss = s.loss;
      step_flops = s.flops;
      r = static_cast<int64_t>(std::lround(s.mean_r));
    } else {
      const EncodedSet batch = select(rows);
      LoopTrace trace;
      loss = answerLoss(model->forward(batch.tokens, batch.key_bias, LoopPlan{r, qc.backprop_last},
                                       model->looped() ? &trace : nullptr),
                        batch.targets);
      train_stats.add(trace);
    }
    if (qc.progressive_weight > 0) {
      // n iterations without gradient, then k with it (Bansal et al. 2022), mixed with the
      // full-depth loss: (1 - w) full + w progressive.
      std::mt19937_64 rng = indexedGenerator(seed, kProgressiveStream, step);
      const int64_t n = std::uniform_int_distribution<int64_t>(0, r - 1)(rng);
      const int64_t k = std::uniform_int_distribution<int64_t>(1, r - n)(rng);
      const EncodedSet batch = select(rows);
      const auto e = model->encode(batch.tokens, batch.key_bias);
      torch::Tensor h;
      if (n > 0) {
        torch::NoGradGuard no_grad;
        h = model->iterate(h, e.detach(), batch.key_bias, 0, n);
      }
      if (h.defined()) h = h.detach();
      h = model->iterate(h, e, batch.key_bias, n, k);
      const auto progressive = answerLoss(model->decode(h, e, batch.key_bias), batch.targets);
      loss = (1.0 - qc.progressive_weight) * loss + qc.progressive_weight * progressive;
      executed += n + k;
    }
    const double loss_value = loss.item<double>();
    if (!std::isfinite(loss_value))
      return session.diverged(loss_value, "; lower train.lr or raise warmup_steps");
    loss.backward();
    const double grad_norm = optimizer->clipGradNorm(tc.grad_clip);
    const double lr = optimizer->learningRate(step);
    optimizer->step(step);
    optimizer->zeroGrad();

    session.countStep(tokens_per_step);
    state.flops += per_t ? step_flops : stepFlopsAt(executed);
    if (session.due(tc.log_every)) {
      std::vector<std::pair<std::string, double>> values{
          {metric_keys::kTrainLoss, loss_value},
          {metric_keys::kLearningRate, lr},
          {metric_keys::kGradNorm, grad_norm},
          {metric_keys::kTokensPerSecond, session.takeTokensPerSecond()},
          {metric_keys::kIterations, static_cast<double>(r)}};
      for (auto& v : train_stats.metrics("loop/state")) values.push_back(std::move(v));
      train_stats = LoopStats();
      session.metric(std::move(values));
    }
    if (session.due(tc.eval_every)) last_val_loss = evaluate();
    if (session.due(tc.checkpoint_every)) checkpoint();
  }
  if (std::isnan(last_val_loss)) last_val_loss = evaluate();  // steps = 0
  if (model->looped()) sweepIterations();

  // --- final model (already saved, unless the run had no steps to take) -----------------------
  const auto saved = listCheckpoints(options.workdir);
  if (saved.empty() || saved.front().step != step) checkpoint();

  return session.finished(last_val_loss);
}

}  // namespace deepladder::trainers::squaring
