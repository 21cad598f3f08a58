// Tokens of the squaring task (vocabulary 17, as in the "One Layer Deeper" competition):
// PAD 0, BOS 1, N 2, X 3, T 4, ANS 5, EOS 6, decimal digits 0-9 as 7-16. The prompt is
// `N digits(N) X digits(x) T digits(T)`, most significant digit first; the answer is digits(z).
//
// Two layouts turn examples into fixed-length training arrays:
// - "separate" (the competition's default): the model reads the prompt bidirectionally with a
//   padding mask and predicts the answer digits at the last len(answer) positions of the prompt.
//   Prompts are left-aligned (PAD on the right), as the benchmark's collate_squaring_mod lays
//   them out, so every prompt starts at position 0 and its answer sits just before its padding.
// - "causal": BOS prompt ANS answer EOS, next-token targets, loss on the answer and EOS only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace deepladder::squaring {

inline constexpr int32_t kPad = 0;
inline constexpr int32_t kBos = 1;
inline constexpr int32_t kTokenN = 2;
inline constexpr int32_t kTokenX = 3;
inline constexpr int32_t kTokenT = 4;
inline constexpr int32_t kAns = 5;
inline constexpr int32_t kEos = 6;
inline constexpr int32_t kDigitZero = 7;  // digit d is kDigitZero + d
inline constexpr int32_t kVocabSize = 17;
// Targets that carry no loss in the batch arrays.
inline constexpr int32_t kIgnoreTarget = -100;

// Writes digits(v) as tokens (most significant first) to `out`; returns the count (<= 20).
int writeDigitTokens(uint64_t v, int32_t* out);
// Prompt tokens written to `out` (room for 63); returns the count. No allocation.
int writePromptTokens(uint64_t n, uint64_t x, int64_t t, int32_t* out);

std::vector<int32_t> promptTokens(uint64_t n, uint64_t x, int64_t t);
std::vector<int32_t> answerTokens(uint64_t z);
// BOS prompt ANS answer EOS.
std::vector<int32_t> causalTokens(uint64_t n, uint64_t x, int64_t t, uint64_t z);
// The value of answer digit tokens; -1 when empty, longer than 19 digits or a non-digit appears.
int64_t answerValue(const std::vector<int32_t>& digit_tokens);

// Longest prompt over moduli below 2^max_bits and T <= max_t.
int promptLengthBound(int max_bits, int64_t max_t);
int answerLengthBound(int max_bits);
// seq_len that fits every causal sequence of such prompts: prompt + answer + 2 (BOS, ANS, EOS,
// minus the shift by one).
int causalSeqLenBound(int max_bits, int64_t max_t);

// One example of the task: the prompt (n, x, t) and its label z = x^(2^t) mod n.
struct Example {
  uint64_t n = 0, x = 0, z = 0;
  int64_t t = 0;
  bool operator==(const Example& o) const { return n == o.n && x == o.x && z == o.z && t == o.t; }
};

// Separate layout, (rows, seq_len) row-major arrays: inputs are the left-aligned prompt
// (PAD right), input_mask 1 on prompt tokens; targets hold the answer digits at the prompt's
// last len(answer) positions [len(prompt) - len(answer), len(prompt)) and kIgnoreTarget
// elsewhere, target_mask 1 there.
struct SeparateBatch {
  int64_t rows = 0, seq_len = 0;
  std::vector<int32_t> inputs;
  std::vector<uint8_t> input_mask;
  std::vector<int32_t> targets;
  std::vector<uint8_t> target_mask;
};
// Throws UserError when a prompt is longer than seq_len.
SeparateBatch makeSeparateBatch(const std::vector<Example>& examples, int64_t seq_len);

// Causal layout, (rows, seq_len) arrays: the sequence BOS prompt ANS answer EOS of length L is
// split into inputs [0, L-1) and targets [1, L), left-aligned, PAD right; loss_mask is 1 where
// the target is an answer digit or EOS, and targets are kIgnoreTarget where the mask is 0.
struct CausalBatch {
  int64_t rows = 0, seq_len = 0;
  std::vector<int32_t> inputs;
  std::vector<int32_t> targets;
  std::vector<uint8_t> loss_mask;
};
// Throws UserError when a sequence needs more than seq_len + 1 tokens.
CausalBatch makeCausalBatch(const std::vector<Example>& examples, int64_t seq_len);

}  // namespace deepladder::squaring
