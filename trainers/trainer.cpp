// The training loop (see trainer.h).
#include "trainers/trainer.h"

#include <torch/torch.h>

#include <cassert>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <thread>

#include "core/architecture.h"
#include "core/data_budget.h"
#include "core/errors.h"
#include "core/eval_fractions.h"
#include "core/flop_model.h"
#include "core/metric_keys.h"
#include "core/options/validate.h"
#include "trainers/adamw.h"
#include "trainers/batch_tensor.h"
#include "trainers/checkpoint.h"
#include "trainers/data/token_data.h"
#include "trainers/data_parallel.h"
#include "trainers/eval_depth.h"
#include "trainers/gpt.h"
#include "trainers/growth.h"
#include "trainers/lr_schedule.h"
#include "trainers/memory_usage.h"
#include "trainers/micro_batches.h"
#include "trainers/model_weights.h"
#include "trainers/precision.h"
#include "trainers/run_optimizer.h"
#include "trainers/run_session.h"

namespace deepladder::trainers {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string formatNumber(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

int resolveThreadCount(int64_t requested) {
  if (requested > 0) return static_cast<int>(requested);
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

TrainOutcome runTraining(const RunConfig& config, const TrainerOptions& options,
                         const MessageSink& emit_all) {
  assert(options::isValidRunConfig(config));  // validated before it was queued
  const TrainConfig& tc = config.train;
  const ModelConfig& mc = config.model;
  // Data parallelism: one of P ranks when a launcher says so (a world of one
  // otherwise); rank 0 alone speaks the protocol and writes checkpoints.
  DataParallel dp = DataParallel::join(tc.device);
  if (tc.ranks > 1 && dp.worldSize() != tc.ranks)
    throw UserError("train.ranks = " + std::to_string(tc.ranks) +
                    " but this worker runs in a world of " + std::to_string(dp.worldSize()) +
                    ": start the run with 'deepladder run' (which launches every rank) or with a "
                    "launcher that starts " +
                    std::to_string(tc.ranks) + " ranks");
  RunSession session(config, options, dp.rootOnly(emit_all));
  TrainingState& state = session.state();
  const torch::Device device(dp.deviceFor(tc.device));

  // --- data ---------------------------------------------------------------------------------
  auto train_data = data::openTokenData(config.data, data::Split::kTrain, mc.seq_len);
  auto val_data = data::openTokenData(config.data, data::Split::kValidation, mc.seq_len);
  for (const auto* d : {train_data.get(), val_data.get()})
    if (d->maxTokenId() >= mc.vocab_size)
      throw UserError("model.vocab_size: " + d->describe() + " holds token id " +
                      std::to_string(d->maxTokenId()) + ", beyond vocab_size " +
                      std::to_string(mc.vocab_size) + ". Set vocab_size to at least " +
                      std::to_string(d->maxTokenId() + 1));
  // Without replacement over the run's token budget (core/data_budget.h): one epoch over a
  // shuffled prefix when the split holds S x B windows, reshuffled epochs when it does not.
  const DataBudget budget = dataBudget(tc.steps, tc.batch_size, mc.seq_len, train_data->size());
  if (const auto problem = dataBudgetProblem(budget, config.data.max_epochs))
    throw UserError("run " + config.name + ": " + train_data->describe() + ": " + *problem);
  data::BatchSampler sampler(*train_data, tc.batch_size, mc.seq_len, static_cast<uint64_t>(tc.seed),
                             budget.windows_needed);
  std::vector<torch::Tensor> val_batches;
  for (const auto& batch :
       data::validationBatches(config.data, *val_data, tc.eval_batches, tc.batch_size, mc.seq_len))
    val_batches.push_back(batchTensor(batch, device));

  // --- model and optimizer --------------------------------------------------------------------
  requirePrecisionSupported(tc.precision, device);
  GPT model(mc);
  // train.init_from: the file's weights replace the seed's (before growth; a resume then reads
  // its checkpoint over them).
  if (!tc.init_from.empty()) loadInitialWeights(model, tc.init_from);
  model->to(device);
  model->setActivationCheckpointing(tc.activation_checkpointing, tc.activation_checkpointing_k);
  const ForwardOptions forward{tc.micro_batch, tc.precision};  // also for validation
  // With P ranks, each orthogonalizes a share of Muon's matrices and the results are shared.
  const std::unique_ptr<RunOptimizer> optimizer =
      RunOptimizer::create(tc, model, dp.muonOrthogonalizer());

  dp.broadcastParameters(model->parameters());  // every rank starts from rank 0's init
  const double flops_per_token = flopsPerToken(mc);
  const int64_t tokens_per_step = tc.batch_size * mc.seq_len;
  const int64_t growth_step = growthStep(mc, tc.steps);  // -1: no growth

  // --- resume ---------------------------------------------------------------------------------
  const bool resumed = session.resume(
      [&](const std::string& workdir, const std::string& hash, std::vector<std::string>* skipped) {
        return loadNewestValidCheckpoint(workdir, hash, model, *optimizer, skipped);
      });
  if (resumed) {
    if (state.sampler_windows != 0 && state.sampler_windows != sampler.epochWindows())
      throw UserError("resume from step " + std::to_string(state.step) + " in " + options.workdir +
                      ": the checkpoint read " + train_data->describe() + " as " +
                      std::to_string(state.sampler_windows) + " windows an epoch, now it holds " +
                      std::to_string(sampler.epochWindows()) +
                      ": the training data changed since the run started. Restore the data "
                      "it was started with, or start the run afresh in an empty work directory");
    sampler.seek(state.sampler_position);
  }

  dp.requireReplicasEqual(model->parameters(), state, resumed ? "after resume" : "at start");

  protocol::Hello hello;
  hello.device = dp.active() ? device.str() + " x " + dp.describe() : tc.device;
  hello.params = model->parameterCount();
  hello.flops_per_token = flops_per_token;
  session.announce(hello);

  // --- training loop --------------------------------------------------------------------------
  auto checkpoint = [&]() {
    if (!dp.isRoot()) return;
    state.sampler_position = sampler.position();
    state.sampler_windows = sampler.epochWindows();
    state.grown = model->grown();
    session.checkpoint(*model, *optimizer);
  };

  double last_val_loss = std::nan("");
  const std::vector<double> eval_fractions = parseEvalFractions(tc.eval_at);
  double step_seconds = 0;  // running mean of one training step's wall time (lens cost unit)
  int64_t timed_steps = 0;
  model->train();
  while (!session.done()) {
    if (growth_step >= 0 && state.step >= growth_step && !model->grown()) {
      const std::string detail = optimizer->grow(model);  // copied blocks: fresh state
      session.emit()(protocol::Event{state.step, "growth", detail});
      dp.requireReplicasEqual(model->parameters(), state, "after growth");
    }
    const auto step_start = Clock::now();
    if (session.stopRequested()) return session.stopped(last_val_loss);
    const torch::Tensor batch = dp.localRows(batchTensor(sampler.next(), device));  // (B/P, T+1)
    // Forward and backward in micro-batches; .grad holds the gradient of the rows' mean loss.
    const double loss_value = dp.meanLoss(accumulateGradients(model, batch, forward));
    if (!std::isfinite(loss_value))
      return session.diverged(loss_value,
                              " (lr " + formatNumber(optimizer->learningRate(state.step)) +
                                  "); lower train.lr (e.g. by 3x) or raise warmup_steps");
    dp.averageGradients(model->parameters());
    const double grad_norm = optimizer->clipGradNorm(tc.grad_clip);  // 0: no clipping
    const double rewarm = rewarmFactor(mc, tc.steps, state.step);
    const double lr = optimizer->learningRate(state.step, rewarm);
    optimizer->step(state.step, rewarm);
    optimizer->zeroGrad();

    session.countStep(tokens_per_step);
    state.flops = flopsAfterSteps(mc, tc.steps, state.step, tokens_per_step);  // sums the phases
    step_seconds += (secondsSince(step_start) - step_seconds) / static_cast<double>(++timed_steps);

    if (session.due(tc.log_every)) {
      session.metric({{metric_keys::kTrainLoss, loss_value},
                      {metric_keys::kLearningRate, lr},
                      {metric_keys::kGradNorm, grad_norm},
                      {metric_keys::kTokensPerSecond, session.takeTokensPerSecond()},
                      {metric_keys::kPeakMemoryGb, peakMemoryBytes(device) / 1e9}});
      if (dp.active())
        session.metric(
            {{metric_keys::kCommSeconds, dp.communicationSeconds()}});  // in collectives so far
    }
    if (session.due(tc.eval_every)) {
      const ValidationResult val = validate(model, val_batches, /*with_lens=*/true, forward);
      last_val_loss = val.loss;
      session.metric({{metric_keys::kValLoss, last_val_loss},
                      {metric_keys::kLensCostSteps,
                       step_seconds > 0 ? val.lens_seconds / step_seconds : 0.0}});
      session.emit()(protocol::Lens{state.step, val.lens_kl});
    } else if (evalAtStep(eval_fractions, state.step, tc.steps)) {
      // train.eval_at: the loss alone, for the curve predictions made at this fraction.
      last_val_loss = validate(model, val_batches, /*with_lens=*/false, forward).loss;
      session.metric({{metric_keys::kValLoss, last_val_loss}});
    }
    if (session.due(tc.checkpoint_every)) checkpoint();
  }
  if (std::isnan(last_val_loss))
    last_val_loss = validate(model, val_batches, false, forward).loss;  // resumed at the end
  // The peak over the whole run, validation and checkpoint writes included.
  session.metric({{metric_keys::kPeakMemoryGb, peakMemoryBytes(device) / 1e9}});
  return session.finished(last_val_loss);
}

}  // namespace deepladder::trainers
