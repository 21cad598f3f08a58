// The training loop (see trainer.h).
#include "trainers/trainer.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <thread>

#include "core/errors.h"
#include "core/flop_model.h"
#include "trainers/adamw.h"
#include "trainers/checkpoint.h"
#include "trainers/data/token_data.h"
#include "trainers/gpt.h"
#include "trainers/lr_schedule.h"

namespace deepladder::trainers {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// (rows, T+1) int32 -> (rows, T+1) int64 on the device.
torch::Tensor toTensor(const data::Batch& batch, const torch::Device& device) {
  auto host = torch::from_blob(const_cast<int32_t*>(batch.tokens.data()),
                               {batch.rows, batch.seq_len + 1}, torch::kInt32);
  return host.to(device, torch::kInt64);
}

// Mean loss over the fixed validation batches.
double validationLoss(GPT& model, const std::vector<torch::Tensor>& batches) {
  torch::NoGradGuard no_grad;
  model->eval();
  double total = 0;
  for (const auto& batch : batches) {
    const int64_t T = batch.size(1) - 1;
    total += model->loss(batch.narrow(1, 0, T), batch.narrow(1, 1, T)).item<double>();
  }
  model->train();
  return batches.empty() ? 0.0 : total / static_cast<double>(batches.size());
}

std::string formatNumber(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// The options this trainer implements; the rest of RunConfig belongs to later issues (depth
// architectures, the serial task) and is refused rather than silently ignored.
void requireSupported(const RunConfig& c) {
  auto refuse = [](const std::string& field, const std::string& value, const std::string& hint) {
    throw UserError(field + " = " + value + " is not implemented by this trainer yet. " + hint);
  };
  const ModelConfig& m = c.model;
  if (c.task != "lm") refuse("task", "\"" + c.task + "\"", "use task = \"lm\"");
  if (m.arch != "vanilla") refuse("model.arch", "\"" + m.arch + "\"", "use arch = \"vanilla\"");
  if (m.grow_layers > 0 || m.grow_passes > 0)
    refuse("model.grow_layers/grow_passes", "> 0", "set them to 0 (no growth)");
  if (m.boundary_every > 0)
    refuse("model.boundary_every", std::to_string(m.boundary_every), "set it to 0");
  if (m.layernorm_scaling) refuse("model.layernorm_scaling", "true", "set it to false");
  if (m.positions != "rope")
    refuse("model.positions", "\"" + m.positions + "\"", "use positions = \"rope\"");
  if (m.attention != "causal")
    refuse("model.attention", "\"" + m.attention + "\"", "use attention = \"causal\"");
}

}  // namespace

int resolveThreadCount(int64_t requested) {
  if (requested > 0) return static_cast<int>(requested);
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

TrainOutcome runTraining(const RunConfig& config, const TrainerOptions& options,
                         const MessageSink& emit) {
  requireSupported(config);
  const auto start = Clock::now();
  const TrainConfig& tc = config.train;
  const ModelConfig& mc = config.model;
  torch::set_num_threads(resolveThreadCount(tc.threads));
  torch::manual_seed(static_cast<uint64_t>(tc.seed));
  const torch::Device device(tc.device);

  // --- data ---------------------------------------------------------------------------------
  auto train_data = data::openTokenData(config.data, data::Split::kTrain, mc.seq_len);
  auto val_data = data::openTokenData(config.data, data::Split::kValidation, mc.seq_len);
  for (const auto* d : {train_data.get(), val_data.get()})
    if (d->maxTokenId() >= mc.vocab_size)
      throw UserError("model.vocab_size: " + d->describe() + " holds token id " +
                      std::to_string(d->maxTokenId()) + ", beyond vocab_size " +
                      std::to_string(mc.vocab_size) + ". Set vocab_size to at least " +
                      std::to_string(d->maxTokenId() + 1));
  data::BatchSampler sampler(*train_data, tc.batch_size, mc.seq_len,
                             static_cast<uint64_t>(tc.seed));
  std::vector<torch::Tensor> val_batches;
  for (const auto& batch :
       data::fixedValidationBatches(*val_data, tc.eval_batches, tc.batch_size, mc.seq_len))
    val_batches.push_back(toTensor(batch, device));

  // --- model and optimizer --------------------------------------------------------------------
  GPT model(mc);
  model->to(device);
  AdamWOptions adam;
  adam.beta1 = tc.beta1;
  adam.beta2 = tc.beta2;
  adam.eps = tc.eps;
  adam.weight_decay = tc.weight_decay;
  AdamW optimizer(model->parameters(), adam);

  const std::string hash = configHash(config);
  const double flops_per_token = flopsPerToken(mc);
  const int64_t tokens_per_step = tc.batch_size * mc.seq_len;

  // --- resume ---------------------------------------------------------------------------------
  TrainingState state;
  state.config_hash = hash;
  std::filesystem::create_directories(options.workdir);
  int64_t resumed_from = -1;
  std::vector<std::string> skipped;
  if (options.resume) {
    if (auto loaded =
            loadNewestValidCheckpoint(options.workdir, hash, model, optimizer, &skipped)) {
      state = *loaded;
      resumed_from = state.step;
      sampler.seek(state.sampler_position);
    }
  }

  protocol::Hello hello;
  hello.run_id = options.run_id;
  hello.config_hash = hash;
  hello.device = tc.device;
  hello.resumed_from = resumed_from;
  hello.params = model->parameterCount();
  hello.flops_per_token = flops_per_token;
  emit(hello);
  for (const auto& why : skipped)
    emit(protocol::Event{state.step, "checkpoint_skipped", why + "; using an older checkpoint"});
  if (options.resume && resumed_from < 0 && !skipped.empty())
    emit(protocol::Event{0, "fresh_start", "no usable checkpoint; training from step 0"});

  // --- training loop --------------------------------------------------------------------------
  auto metric = [&](std::vector<std::pair<std::string, double>> values) {
    protocol::Metric m;
    m.step = state.step;
    m.tokens = state.tokens;
    m.flops = state.flops;
    m.wall_s = secondsSince(start);
    m.values = std::move(values);
    emit(m);
  };
  auto checkpoint = [&]() {
    state.sampler_position = sampler.position();
    const CheckpointRecord record = saveCheckpoint(options.workdir, model, optimizer, state);
    pruneCheckpoints(options.workdir, tc.keep_checkpoints);
    emit(protocol::Checkpoint{record.step, record.path, record.sha256});
  };

  TrainOutcome outcome;
  double last_val_loss = std::nan("");
  auto interval_start = Clock::now();
  int64_t interval_tokens = 0;
  model->train();
  while (state.step < tc.steps) {
    if (options.max_steps >= 0 && state.step >= options.max_steps) {
      outcome.status = TrainStatus::kStopped;
      outcome.steps = state.step;
      outcome.final_loss = last_val_loss;
      return outcome;
    }
    const torch::Tensor batch = toTensor(sampler.next(), device);  // (B, T+1)
    const torch::Tensor inputs = batch.narrow(1, 0, mc.seq_len);   // (B, T)
    const torch::Tensor targets = batch.narrow(1, 1, mc.seq_len);  // (B, T)
    torch::Tensor loss = model->loss(inputs, targets);
    const double loss_value = loss.item<double>();
    if (!std::isfinite(loss_value)) {
      protocol::Done done;
      done.status = "diverged";
      done.final_loss = loss_value;
      done.steps = state.step;
      done.tokens = state.tokens;
      done.flops = state.flops;
      done.wall_s = secondsSince(start);
      done.message = "training loss became " + std::string(std::isnan(loss_value) ? "NaN" : "Inf") +
                     " at step " + std::to_string(state.step + 1) + " (lr " +
                     formatNumber(learningRate(tc, state.step)) +
                     "); lower train.lr (e.g. by 3x) or raise warmup_steps";
      emit(done);
      outcome.status = TrainStatus::kDiverged;
      outcome.steps = state.step;
      outcome.final_loss = loss_value;
      return outcome;
    }
    loss.backward();
    const double grad_norm = optimizer.clipGradNorm(tc.grad_clip);
    const double lr = learningRate(tc, state.step);
    optimizer.step(lr);
    optimizer.zeroGrad();

    ++state.step;
    state.tokens += tokens_per_step;
    state.flops += static_cast<double>(tokens_per_step) * flops_per_token;
    interval_tokens += tokens_per_step;
    const bool last = state.step == tc.steps;

    if (state.step % tc.log_every == 0 || last) {
      const double seconds = secondsSince(interval_start);
      metric({{"train/loss", loss_value},
              {"lr", lr},
              {"grad_norm", grad_norm},
              {"tokens_per_s", seconds > 0 ? interval_tokens / seconds : 0.0}});
      interval_start = Clock::now();
      interval_tokens = 0;
    }
    if (state.step % tc.eval_every == 0 || last) {
      last_val_loss = validationLoss(model, val_batches);
      metric({{"val/loss", last_val_loss}});
    }
    if ((tc.checkpoint_every > 0 && state.step % tc.checkpoint_every == 0) || last) checkpoint();
  }
  if (std::isnan(last_val_loss))
    last_val_loss = validationLoss(model, val_batches);  // resumed at the end

  protocol::Done done;
  done.status = "finished";
  done.final_loss = last_val_loss;
  done.steps = state.step;
  done.tokens = state.tokens;
  done.flops = state.flops;
  done.wall_s = secondsSince(start);
  emit(done);
  outcome.steps = state.step;
  outcome.final_loss = last_val_loss;
  return outcome;
}

}  // namespace deepladder::trainers
