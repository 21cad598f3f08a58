// How a batch goes through the model (train.micro_batch, train.precision): its rows in
// micro-batches of at most `micro_batch` sequences per forward pass, each forward under the run's
// autocast (trainers/precision.h).
//
// For training, accumulateGradients scales each micro-batch's mean loss by its share of the rows
// before its backward, so the gradients that accumulate in .grad are those of the mean loss over
// all rows: the same update as one forward over the whole batch (to float rounding), with the
// activation memory of one micro-batch. The loss, the tokens and the FLOPs of a step do not
// change. Data-parallel ranks each accumulate their own rows first and then average (the
// all-reduce runs once per step, after the last micro-batch). With a single micro-batch nothing is
// scaled, so that path is exactly one forward and one backward.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "core/options/option_enums.h"
#include "trainers/gpt.h"

namespace deepladder::trainers {

struct ForwardOptions {
  int64_t micro_batch = 0;  // rows per forward; 0 = all of them at once
  Precision precision = Precision::fp32;
};

// (R, ...) -> views of at most `micro_batch` rows each, in order (one view when micro_batch is 0
// or >= R).
std::vector<torch::Tensor> splitRows(const torch::Tensor& rows, int64_t micro_batch);

// rows: (R, T+1) token ids on the model's device, inputs = [:, :T], targets = [:, 1:]. Runs the
// forward and backward passes of every micro-batch (adding to .grad) and returns the mean
// next-token loss over all R x T targets (NaN or Inf when the training diverged).
double accumulateGradients(GPT& model, const torch::Tensor& rows, const ForwardOptions& options);

}  // namespace deepladder::trainers
