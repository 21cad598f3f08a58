// Validation of a GPT on fixed held-out batches: the loss, optionally with the logit-lens KL
// profile from the same forward pass (trainers/logit_lens.h); validation loss at test-time core
// passes K' (a looped or recurrent model evaluated deeper or shallower than it was trained);
// and the worker's evaluation mode that does the latter for a run's newest checkpoint.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/run_config.h"
#include "trainers/gpt.h"
#include "trainers/micro_batches.h"
#include "trainers/trainer.h"

namespace deepladder::trainers {

struct ValidationResult {
  double loss = 0;              // next-token cross-entropy, mean over every target token
  std::vector<double> lens_kl;  // per residual state (0 = embedding): mean KL(p || q_l), nats
  double lens_seconds = 0;      // time spent on the lens (decoding the states), not the forward
};

// batches: (B, T+1) int64 token rows, each run in micro-batches of forward.micro_batch rows under
// the run's precision. Runs in eval mode without autograd; the model is put back in training
// mode afterwards.
ValidationResult validate(GPT& model, const std::vector<torch::Tensor>& batches, bool with_lens,
                          const ForwardOptions& forward = {});

// Validation loss at each of `passes` (K'); the model's own K is restored afterwards.
std::vector<std::pair<int64_t, double>> lossAtPasses(GPT& model,
                                                     const std::vector<torch::Tensor>& batches,
                                                     const std::vector<int64_t>& passes,
                                                     const ForwardOptions& forward = {});

// "1..16", "1,2,4,8" or "3" -> the listed K' (ascending, unique). Throws UserError otherwise.
std::vector<int64_t> parsePassesList(const std::string& text);

// The worker's evaluation mode (deepladder-worker --eval-passes LIST): loads the newest valid
// checkpoint in options.workdir and emits one protocol::Metric per K' with step = K' and the value
// "val/loss@passes" (tokens and flops: the checkpoint's), then Done{"finished"} whose final_loss
// is the loss at the trained K. Throws UserError for a vanilla model or when no checkpoint loads.
void runPassesEvaluation(const RunConfig& config, const TrainerOptions& options,
                         const std::vector<int64_t>& passes, const MessageSink& emit);

}  // namespace deepladder::trainers
