// Validation, lens profile and test-time depth (see eval_depth.h).
#include "trainers/eval_depth.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>

#include "core/errors.h"
#include "core/metric_keys.h"
#include "core/run_status.h"
#include "trainers/adamw.h"
#include "trainers/batch_tensor.h"
#include "trainers/checkpoint.h"
#include "trainers/data/token_data.h"
#include "trainers/growth.h"
#include "trainers/logit_lens.h"
#include "trainers/precision.h"

namespace deepladder::trainers {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

ValidationResult validate(GPT& model, const std::vector<torch::Tensor>& batches, bool with_lens,
                          const ForwardOptions& forward) {
  torch::NoGradGuard no_grad;
  model->eval();
  ValidationResult result;
  std::vector<double> kl_sum;
  int64_t tokens = 0;
  int64_t loss_tokens = 0;
  std::vector<torch::Tensor> parts;
  for (const auto& batch : batches)
    for (const auto& part : splitRows(batch, forward.micro_batch)) parts.push_back(part);
  for (const auto& batch : parts) {
    AutocastGuard autocast(forward.precision, batch.device());
    const int64_t T = batch.size(1) - 1;
    const torch::Tensor inputs = batch.narrow(1, 0, T);
    const torch::Tensor targets = batch.narrow(1, 1, T);
    std::vector<torch::Tensor> residuals;
    const torch::Tensor logits = model->forward(inputs, with_lens ? &residuals : nullptr);
    // Summed over the batch's tokens: the loss is the token mean over every batch, also when
    // the last batch of a contiguous validation set is shorter.
    result.loss += torch::nn::functional::cross_entropy(
                       logits.reshape({-1, logits.size(-1)}), targets.reshape({-1}),
                       torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                       .item<double>();
    loss_tokens += targets.numel();
    if (with_lens) {
      const auto start = Clock::now();
      tokens += addLensKl(*model, residuals, kl_sum);
      result.lens_seconds += std::chrono::duration<double>(Clock::now() - start).count();
    }
  }
  model->train();
  if (loss_tokens > 0) result.loss /= static_cast<double>(loss_tokens);
  if (with_lens && tokens > 0)
    for (double s : kl_sum) result.lens_kl.push_back(s / static_cast<double>(tokens));
  return result;
}

std::vector<std::pair<int64_t, double>> lossAtPasses(GPT& model,
                                                     const std::vector<torch::Tensor>& batches,
                                                     const std::vector<int64_t>& passes,
                                                     const ForwardOptions& forward) {
  const int64_t trained = model->passes();
  std::vector<std::pair<int64_t, double>> losses;
  try {
    for (int64_t k : passes) {
      model->setPasses(k);
      losses.emplace_back(k, validate(model, batches, /*with_lens=*/false, forward).loss);
    }
  } catch (...) {
    if (model->isPcc()) model->setPasses(trained);
    throw;
  }
  model->setPasses(trained);
  return losses;
}

std::vector<int64_t> parsePassesList(const std::string& text) {
  auto fail = [&]() -> UserError {
    return UserError("--passes/--eval-passes: \"" + text +
                     "\" is not a pass list. Write a range like 1..16, a list like 1,2,4,8 or "
                     "one number; every K' at least 1 and at most 1024");
  };
  auto number = [&](const std::string& s) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 4)
      throw fail();
    const int64_t v = std::stoll(s);
    if (v < 1 || v > 1024) throw fail();
    return v;
  };
  std::set<int64_t> values;
  const auto range = text.find("..");
  if (range != std::string::npos) {
    const int64_t lo = number(text.substr(0, range)), hi = number(text.substr(range + 2));
    if (hi < lo) throw fail();
    for (int64_t k = lo; k <= hi; ++k) values.insert(k);
  } else {
    size_t begin = 0;
    while (begin <= text.size()) {
      const size_t comma = text.find(',', begin);
      const size_t end = comma == std::string::npos ? text.size() : comma;
      values.insert(number(text.substr(begin, end - begin)));
      if (comma == std::string::npos) break;
      begin = comma + 1;
    }
  }
  return {values.begin(), values.end()};
}

void runPassesEvaluation(const RunConfig& config, const TrainerOptions& options,
                         const std::vector<int64_t>& passes, const MessageSink& emit) {
  const ModelConfig& mc = config.model;
  const TrainConfig& tc = config.train;
  if (mc.arch != Arch::pcc)
    throw UserError(config.name + ": model.arch = \"" + enumName(mc.arch) +
                    "\" has no core passes to vary. Test-time depth needs a looped or recurrent "
                    "model (arch = \"pcc\", e.g. the loop_2 or untied_grow arms)");
  torch::set_num_threads(resolveThreadCount(tc.threads));
  const torch::Device device(tc.device);
  requirePrecisionSupported(tc.precision, device);
  auto val_data = data::openTokenData(config.data, data::Split::kValidation, mc.seq_len);
  std::vector<torch::Tensor> batches;
  for (const auto& batch :
       data::validationBatches(config.data, *val_data, tc.eval_batches, tc.batch_size, mc.seq_len))
    batches.push_back(batchTensor(batch, device));

  GPT model(mc);
  model->to(device);
  // The run's own optimizer kind, so the checkpoint's optimizer state reads back.
  auto optimizer = RunOptimizer::create(tc, model);
  std::vector<std::string> skipped;
  // Any config hash: the hash covers run-time settings such as train.threads, which the
  // scheduler overrides per slot (--threads); the workdir is the run's own, and a checkpoint of
  // another shape fails to load and is skipped.
  const auto state = loadNewestValidCheckpoint(options.workdir, "", model, *optimizer, &skipped);
  if (!state) {
    std::string why;
    for (const auto& s : skipped) why += "; " + s;
    throw UserError("run " + options.run_id + ": no valid checkpoint in " + options.workdir +
                    (why.empty() ? " (none written yet)" : why) +
                    ". Train the run first ('deepladder train' or 'deepladder run')");
  }
  optimizer.reset();  // the optimizer's moments are not needed to evaluate
  const auto start = Clock::now();
  const int64_t trained = model->passes();
  double trained_loss = std::nan("");
  const ForwardOptions forward{tc.micro_batch, tc.precision};
  for (const auto& [k, loss] : lossAtPasses(model, batches, passes, forward)) {
    protocol::Metric metric;
    metric.step = k;
    metric.tokens = state->tokens;
    metric.flops = state->flops;
    metric.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    metric.values = {{metric_keys::kValLossAtPasses, loss}};
    emit(metric);
    if (k == trained) trained_loss = loss;
  }
  protocol::Done done;
  done.status = RunStatus::kFinished;
  done.final_loss =
      std::isnan(trained_loss) ? validate(model, batches, false, forward).loss : trained_loss;
  done.steps = state->step;
  done.tokens = state->tokens;
  done.flops = state->flops;
  done.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  done.message = "evaluated at " + std::to_string(passes.size()) + " core pass counts (trained K " +
                 std::to_string(trained) + ", checkpoint step " + std::to_string(state->step) + ")";
  emit(done);
}

}  // namespace deepladder::trainers
