// Token encoding and the separate / causal batch layouts (see tokens.h).
#include "core/squaring/tokens.h"

#include <algorithm>

#include "core/errors.h"
#include "core/squaring/modular_arithmetic.h"

namespace deepladder::squaring {

int writeDigitTokens(uint64_t v, int32_t* out) {
  int32_t reversed[20];
  int count = 0;
  do {
    reversed[count++] = kDigitZero + static_cast<int32_t>(v % 10);
    v /= 10;
  } while (v != 0);
  for (int i = 0; i < count; ++i) out[i] = reversed[count - 1 - i];
  return count;
}

int writePromptTokens(uint64_t n, uint64_t x, int64_t t, int32_t* out) {
  int k = 0;
  out[k++] = kTokenN;
  k += writeDigitTokens(n, out + k);
  out[k++] = kTokenX;
  k += writeDigitTokens(x, out + k);
  out[k++] = kTokenT;
  k += writeDigitTokens(static_cast<uint64_t>(t), out + k);
  return k;
}

std::vector<int32_t> promptTokens(uint64_t n, uint64_t x, int64_t t) {
  int32_t buffer[64];
  const int count = writePromptTokens(n, x, t, buffer);
  return std::vector<int32_t>(buffer, buffer + count);
}

std::vector<int32_t> answerTokens(uint64_t z) {
  int32_t buffer[20];
  const int count = writeDigitTokens(z, buffer);
  return std::vector<int32_t>(buffer, buffer + count);
}

std::vector<int32_t> causalTokens(uint64_t n, uint64_t x, int64_t t, uint64_t z) {
  std::vector<int32_t> out{kBos};
  for (int32_t tok : promptTokens(n, x, t)) out.push_back(tok);
  out.push_back(kAns);
  for (int32_t tok : answerTokens(z)) out.push_back(tok);
  out.push_back(kEos);
  return out;
}

int64_t answerValue(const std::vector<int32_t>& digit_tokens) {
  if (digit_tokens.empty() || digit_tokens.size() > 19) return -1;
  int64_t value = 0;
  for (int32_t tok : digit_tokens) {
    if (tok < kDigitZero || tok > kDigitZero + 9) return -1;
    value = value * 10 + (tok - kDigitZero);
  }
  return value;
}

int answerLengthBound(int max_bits) {
  const uint64_t max_value = max_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << max_bits) - 1;
  return decimalDigitCount(max_value);
}

int promptLengthBound(int max_bits, int64_t max_t) {
  return 3 + 2 * answerLengthBound(max_bits) + decimalDigitCount(static_cast<uint64_t>(max_t));
}

int causalSeqLenBound(int max_bits, int64_t max_t) {
  return promptLengthBound(max_bits, max_t) + answerLengthBound(max_bits) + 2;
}

SeparateBatch makeSeparateBatch(const std::vector<Example>& examples, int64_t seq_len) {
  SeparateBatch batch;
  batch.rows = static_cast<int64_t>(examples.size());
  batch.seq_len = seq_len;
  const size_t cells = static_cast<size_t>(batch.rows * seq_len);
  batch.inputs.assign(cells, kPad);
  batch.input_mask.assign(cells, 0);
  batch.targets.assign(cells, kIgnoreTarget);
  batch.target_mask.assign(cells, 0);
  int32_t prompt[64];
  int32_t answer[20];
  for (int64_t row = 0; row < batch.rows; ++row) {
    const Example& e = examples[row];
    const int prompt_len = writePromptTokens(e.n, e.x, e.t, prompt);
    const int answer_len = writeDigitTokens(e.z, answer);
    if (prompt_len > seq_len)
      throw UserError("separate layout: a prompt of " + std::to_string(prompt_len) +
                      " tokens does not fit seq_len " + std::to_string(seq_len) +
                      ". Raise seq_len to at least the tier's prompt length bound");
    const size_t base = static_cast<size_t>(row * seq_len);
    const size_t prompt_end = base + static_cast<size_t>(prompt_len);
    std::copy(prompt, prompt + prompt_len, batch.inputs.begin() + base);
    std::fill(batch.input_mask.begin() + base, batch.input_mask.begin() + prompt_end, 1);
    const size_t answer_start = prompt_end - static_cast<size_t>(answer_len);
    std::copy(answer, answer + answer_len, batch.targets.begin() + answer_start);
    std::fill(batch.target_mask.begin() + answer_start, batch.target_mask.begin() + prompt_end, 1);
  }
  return batch;
}

CausalBatch makeCausalBatch(const std::vector<Example>& examples, int64_t seq_len) {
  CausalBatch batch;
  batch.rows = static_cast<int64_t>(examples.size());
  batch.seq_len = seq_len;
  const size_t cells = static_cast<size_t>(batch.rows * seq_len);
  batch.inputs.assign(cells, kPad);
  batch.targets.assign(cells, kIgnoreTarget);
  batch.loss_mask.assign(cells, 0);
  int32_t sequence[96];
  for (int64_t row = 0; row < batch.rows; ++row) {
    const Example& e = examples[row];
    int len = 0;
    sequence[len++] = kBos;
    len += writePromptTokens(e.n, e.x, e.t, sequence + len);
    sequence[len++] = kAns;
    const int answer_start = len;  // index of the first answer digit in `sequence`
    len += writeDigitTokens(e.z, sequence + len);
    sequence[len++] = kEos;
    if (len - 1 > seq_len)
      throw UserError("causal layout: a sequence of " + std::to_string(len) +
                      " tokens does not fit seq_len " + std::to_string(seq_len) +
                      " (+1). Raise seq_len to at least the tier's sequence length bound");
    const size_t base = static_cast<size_t>(row * seq_len);
    for (int i = 0; i + 1 < len; ++i) {
      batch.inputs[base + i] = sequence[i];
      if (i + 1 >= answer_start) {  // target sequence[i + 1] is an answer digit or EOS
        batch.targets[base + i] = sequence[i + 1];
        batch.loss_mask[base + i] = 1;
      }
    }
  }
  return batch;
}

}  // namespace deepladder::squaring
