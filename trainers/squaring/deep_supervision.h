// Deep supervision of a per_t loop (squaring.deep_supervision): step k of a prompt (N, x, T) is
// checked against the intermediate squaring v_k = x^(2^k) mod N, k = 1..T
// (core/squaring/loop_format.h), in the frame its read-out lives in:
//   re-entry: the loop row's x slot, v_k on W places with leading zeros (all W places count:
//             the next step reads them);
//   plain loop: the separate layout's answer positions, digits(v_k) at the prompt's last
//             len(v_k) positions (as the answer z is placed), kIgnoreTarget elsewhere.
// The loss is the mean cross-entropy over every supervised digit of every step.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "core/squaring/tokens.h"

namespace deepladder::trainers::squaring {

// Targets (S, B, P) int64 for S = `steps` steps of the examples (one T each, steps <= T):
// P = width in the slot frame (width > 0), P = seq_len in the answer frame (width = 0).
torch::Tensor deepSupervisionTargets(const std::vector<::deepladder::squaring::Example>& examples,
                                     int64_t steps, int width, int64_t seq_len,
                                     const torch::Device& device);

// Mean cross-entropy of the read-outs (S of (B,P,V)) against targets (S,B,P).
torch::Tensor deepSupervisionLoss(const std::vector<torch::Tensor>& readouts,
                                  const torch::Tensor& targets);

}  // namespace deepladder::trainers::squaring
