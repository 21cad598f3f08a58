// Loop rows, digit re-entry and the answer frame (see reentry.h).
#include "trainers/squaring/reentry.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "core/squaring/loop_format.h"
#include "core/squaring/tokens.h"

namespace deepladder::trainers::squaring {

namespace sq = ::deepladder::squaring;

LoopRows loopRows(const torch::Tensor& prompt_tokens, int width) {
  const auto cpu = prompt_tokens.to(torch::kCPU, torch::kInt32).contiguous();
  const int64_t rows = cpu.size(0), len = cpu.size(1);
  const int row_len = sq::loopRowLength(width);
  std::vector<int64_t> tokens(static_cast<size_t>(rows * row_len));
  std::vector<int64_t> index(static_cast<size_t>(rows * len), width);
  std::vector<int32_t> row_tokens(static_cast<size_t>(row_len));
  const int32_t* data = cpu.data_ptr<int32_t>();
  for (int64_t b = 0; b < rows; ++b) {
    const auto prompt = sq::parsePromptRow(data + b * len, len);
    if (!prompt)
      throw std::invalid_argument("re-entry: row " + std::to_string(b) +
                                  " is not a separate-layout prompt");
    try {
      sq::writeLoopRow(prompt->n, prompt->x, width, row_tokens.data());
    } catch (const std::exception& e) {
      throw std::invalid_argument(std::string("re-entry: ") + e.what());
    }
    std::copy(row_tokens.begin(), row_tokens.end(), tokens.begin() + b * row_len);
    // The answer's i-th digit from the right sits at prompt position length - 1 - i and is
    // place W - 1 - i of the slot.
    for (int i = 0; i < width && i < prompt->length; ++i)
      index[static_cast<size_t>(b * len + prompt->length - 1 - i)] = width - 1 - i;
  }
  const auto options = torch::TensorOptions().dtype(torch::kInt64);
  LoopRows out;
  out.width = width;
  out.tokens =
      torch::from_blob(tokens.data(), {rows, row_len}, options).clone().to(prompt_tokens.device());
  out.answer_index =
      torch::from_blob(index.data(), {rows, len}, options).clone().to(prompt_tokens.device());
  return out;
}

torch::Tensor reenterDigits(const torch::Tensor& slot_logits, const torch::Tensor& embedding,
                            Reentry mode) {
  const auto digits = slot_logits.narrow(-1, sq::kDigitZero, 10);  // (B,W,10)
  const auto p = torch::softmax(digits, -1);
  torch::Tensor weights = p;
  if (mode == Reentry::straight_through) {
    const auto hard = torch::one_hot(digits.argmax(-1), 10).to(p.scalar_type());
    weights = hard + (p - p.detach());  // value: exactly onehot; gradient: that of p
  }
  return torch::matmul(weights, embedding.narrow(0, sq::kDigitZero, 10));  // (B,W,C)
}

torch::Tensor slotAnswerTargets(const std::vector<sq::Example>& examples, int width,
                                const torch::Device& device) {
  const int64_t rows = static_cast<int64_t>(examples.size());
  std::vector<int64_t> targets(static_cast<size_t>(rows * width));
  std::vector<int32_t> digits(static_cast<size_t>(width));
  for (int64_t b = 0; b < rows; ++b) {
    sq::writeFixedWidthDigits(examples[static_cast<size_t>(b)].z, width, digits.data());
    std::copy(digits.begin(), digits.end(), targets.begin() + b * width);
  }
  return torch::from_blob(targets.data(), {1, rows, width},
                          torch::TensorOptions().dtype(torch::kInt64))
      .clone()
      .to(device);
}

torch::Tensor toAnswerFrame(const torch::Tensor& slot_logits, const torch::Tensor& answer_index) {
  const int64_t B = slot_logits.size(0), V = slot_logits.size(2);
  const auto padded = torch::cat({slot_logits, slot_logits.new_zeros({B, 1, V})}, 1);  // (B,W+1,V)
  const auto index = answer_index.unsqueeze(-1).expand({B, answer_index.size(1), V});
  return padded.gather(1, index);  // (B,L,V)
}

}  // namespace deepladder::trainers::squaring
