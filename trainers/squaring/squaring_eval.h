// Scoring a squaring model: tensors of an example set in the run's layout, exact match per
// example (argmax at the answer positions; for the causal layout teacher-forced argmax over the
// answer digits and EOS, which is exact exactly when greedy decoding is), and the protocol::Eval
// rows of an accuracy map.
//
// Eval task names (evals table column `task`):
//   squaring/test      held-out prompts of the training cells (in-distribution)
//   squaring/ood_t     the tier's OOD T on the training moduli
//   squaring/depth     the depth ladder T = 1, 2, 4, ..., 64: the seen-N cohort (prompts on
//                      training moduli that no train/test/OOD record uses, the same at every
//                      rung: Max T) and the OOD-N cohort (unseen sizes, the same pairs per rung)
//   <task>@r=R         the same set at R test-time iterations of a looped core (the sweep of
//                      squaring.eval_passes at the end of training)
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

#include "core/options/option_enums.h"
#include "core/protocol.h"
#include "core/squaring/evaluation.h"
#include "core/squaring/tokens.h"
#include "trainers/squaring/squaring_model.h"

namespace deepladder::trainers::squaring {

namespace sq = ::deepladder::squaring;

// One example set as tensors on a device.
struct EncodedSet {
  std::vector<sq::Example> examples;
  SquaringLayout layout = SquaringLayout::separate;
  torch::Tensor tokens;    // (N,T) int64
  torch::Tensor key_bias;  // (N,1,T) float, or undefined (causal layout: PAD only at the right)
  torch::Tensor targets;   // (N,T) int64, kIgnoreTarget off the answer
};

EncodedSet encodeSet(const std::vector<sq::Example>& examples, SquaringLayout layout,
                     int64_t seq_len, const torch::Device& device);
// Rows `index` (int64 on the set's device) of a set, for minibatches.
EncodedSet selectRows(const EncodedSet& set, const torch::Tensor& index);

// Mean cross-entropy over the answer targets.
torch::Tensor answerLoss(const torch::Tensor& logits, const torch::Tensor& targets);

// Exact match per example at `iterations` test-time iterations (chunks of `chunk` rows, no grad).
std::vector<uint8_t> scoreExactMatch(SquaringModel& model, const EncodedSet& set,
                                     int64_t iterations, int64_t chunk = 1024);
double fractionCorrect(const std::vector<uint8_t>& correct);
// Mean answer loss over the set (no grad).
double setLoss(SquaringModel& model, const EncodedSet& set, int64_t iterations,
               int64_t chunk = 1024);

// The same with r = per_t x T of each example (squaring.iterations = "per_t"): rows are scored in
// groups of equal T.
std::vector<uint8_t> scoreExactMatchPerT(SquaringModel& model, const EncodedSet& set,
                                         int64_t per_t);
double setLossPerT(SquaringModel& model, const EncodedSet& set, int64_t per_t);

// Row indices of a set grouped by the examples' T (ascending T).
std::vector<std::pair<int64_t, std::vector<int64_t>>> rowsByT(const EncodedSet& set);

// One Eval per (bits, T) cell, in (bits, T) order.
std::vector<protocol::Eval> cellEvals(int64_t step, const std::string& task,
                                      const std::vector<sq::Example>& examples,
                                      const std::vector<uint8_t>& correct);
// Adds the scored examples to an accuracy map.
void addToMap(sq::AccuracyMap& map, const std::vector<sq::Example>& examples,
              const std::vector<uint8_t>& correct);

}  // namespace deepladder::trainers::squaring
