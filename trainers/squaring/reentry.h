// Re-entry of a looped squaring model's own read-out (squaring.reentry): the pieces between the
// separate layout's prompt tokens and the loop row of core/squaring/loop_format.h.
//
//   prompt tokens (B,L) --loopRows--> loop row tokens (B,2W+4): N <N> X <x> T 1, numbers on W
//                                     places, and where each answer position reads the x slot
//   step k: the model's logits at the x slot (B,W,V) --reenterDigits--> embeddings (B,W,C) that
//           replace the x slot's token embeddings in step k + 1's row
//   last step: x-slot logits (B,W,V) --toAnswerFrame--> logits (B,L,V) in the prompt's layout
//           (the answer's i-th digit from the right at prompt position length - 1 - i)
//
// reenterDigits, over the ten digit logits z (B,W,10) and the digit rows E of the token
// embedding (10,C), with p = softmax(z):
//   soft:             out = p E
//   straight-through: out = onehot(argmax z) E in the forward pass, and the gradient of p E in
//                     the backward pass (onehot + p - p.detach(), which is exactly onehot)
// so the forward value of straight-through re-entry is exactly the embedding of the read digits:
// the next step reads the same tokens a prompt with that x would hold.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "core/options/option_enums.h"
#include "core/squaring/tokens.h"

namespace deepladder::trainers::squaring {

// Loop rows of a batch of separate-layout prompts.
struct LoopRows {
  torch::Tensor tokens;        // (B, 2W+4) int64: the loop row of (N, x)
  torch::Tensor answer_index;  // (B, L) int64 in [0, W]: the x-slot place each prompt position
                               // reads, W for none
  int width = 0;               // W
};

// Throws std::invalid_argument when a row is not a separate-layout prompt or a number needs
// more than `width` digits (the model was built for another tier).
LoopRows loopRows(const torch::Tensor& prompt_tokens, int width);

// (B,W,V) logits -> (B,W,C): the re-entered x slot (see above). `embedding` is the token
// embedding matrix (V,C).
torch::Tensor reenterDigits(const torch::Tensor& slot_logits, const torch::Tensor& embedding,
                            Reentry mode);

// (B,W,V) x-slot logits -> (B,L,V) logits of the prompt's layout; positions that read no place
// get zero logits.
// The training answers z of `examples` in the slot frame: (1, B, W) int64 digit tokens of z on
// `width` places with leading zeros (squaring.full_width_answer), as deepSupervisionLoss takes
// them for one step.
torch::Tensor slotAnswerTargets(const std::vector<::deepladder::squaring::Example>& examples,
                                int width, const torch::Device& device);

torch::Tensor toAnswerFrame(const torch::Tensor& slot_logits, const torch::Tensor& answer_index);

}  // namespace deepladder::trainers::squaring
