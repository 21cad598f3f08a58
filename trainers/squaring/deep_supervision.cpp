// Intermediate-squaring targets and their loss (see deep_supervision.h).
#include "trainers/squaring/deep_supervision.h"

#include <stdexcept>
#include <string>

#include "core/squaring/loop_format.h"

namespace deepladder::trainers::squaring {

namespace sq = ::deepladder::squaring;

torch::Tensor deepSupervisionTargets(const std::vector<sq::Example>& examples, int64_t steps,
                                     int width, int64_t seq_len, const torch::Device& device) {
  const int64_t rows = static_cast<int64_t>(examples.size());
  const int64_t places = width > 0 ? width : seq_len;
  std::vector<int64_t> targets(static_cast<size_t>(steps * rows * places), sq::kIgnoreTarget);
  std::vector<int32_t> digits(static_cast<size_t>(places));
  for (int64_t b = 0; b < rows; ++b) {
    const sq::Example& e = examples[static_cast<size_t>(b)];
    if (e.t < steps)
      throw std::invalid_argument("deep supervision: " + std::to_string(steps) +
                                  " steps for a prompt with T = " + std::to_string(e.t));
    const auto values = sq::intermediateSquarings(e.n, e.x, steps);
    for (int64_t k = 0; k < steps; ++k) {
      int64_t* out = targets.data() + (k * rows + b) * places;
      if (width > 0) {
        sq::writeFixedWidthDigits(values[static_cast<size_t>(k)], width, digits.data());
        std::copy(digits.begin(), digits.end(), out);
      } else {
        // The answer frame: the separate layout's targets with v_k as the answer.
        const sq::SeparateBatch batch = sq::makeSeparateBatch(
            {sq::Example{e.n, e.x, values[static_cast<size_t>(k)], e.t}}, seq_len);
        std::copy(batch.targets.begin(), batch.targets.end(), out);
      }
    }
  }
  return torch::from_blob(targets.data(), {steps, rows, places},
                          torch::TensorOptions().dtype(torch::kInt64))
      .clone()
      .to(device);
}

torch::Tensor deepSupervisionLoss(const std::vector<torch::Tensor>& readouts,
                                  const torch::Tensor& targets) {
  if (static_cast<int64_t>(readouts.size()) != targets.size(0))
    throw std::invalid_argument("deep supervision: " + std::to_string(readouts.size()) +
                                " read-outs for " + std::to_string(targets.size(0)) +
                                " steps of targets");
  const auto logits = torch::stack(readouts, 0);  // (S,B,P,V)
  return torch::nn::functional::cross_entropy(
      logits.reshape({-1, logits.size(-1)}), targets.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(sq::kIgnoreTarget));
}

}  // namespace deepladder::trainers::squaring
