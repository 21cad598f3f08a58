// The serial task as a loop of single squarings, without LibTorch: what a recurrent recipe whose
// iterations compose reads, writes and is supervised with.
//
// - Intermediate squarings: for a prompt (N, x, T) the values v_k = x^(2^k) mod N, k = 1..T
//   (v_T is the answer z). Deep supervision checks iteration k's read-out against v_k.
// - The loop row: one squaring step's input in the prompt's own tokens,
//       N <N on W places> X <v on W places> T 1
//   every number written with leading zeros to W places (W = the decimal digits of the tier's
//   largest modulus), so the row has the same length 2 W + 4 and the x slot the same positions
//   [W + 2, 2 W + 2) for every prompt. T is 1: a step is one squaring; the prompt's T is how many
//   steps run. A step's digit read-out at the x slot is v written on W places; re-entering it
//   into the x slot gives the next step's row.
// - Parsing a separate-layout prompt row back into (N, x, T), for models that are handed
//   tokens.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/squaring/tiers.h"

namespace deepladder::squaring {

// v_1 .. v_t with v_k = x^(2^k) mod n (empty for t = 0). n >= 2.
std::vector<uint64_t> intermediateSquarings(uint64_t n, uint64_t x, int64_t t);

// W of a tier: the decimal digits of its largest modulus (training and OOD sizes).
int loopDigitWidth(const TierPreset& tier);
// Tokens of the loop row: 2 W + 4.
inline int loopRowLength(int width) {
  return 2 * width + 4;
}
// First position of the x slot in the loop row.
inline int loopSlotStart(int width) {
  return width + 2;
}

// digits(v) on `width` places, leading zeros (digit tokens, most significant first). Throws
// UserError when v needs more than `width` digits.
void writeFixedWidthDigits(uint64_t v, int width, int32_t* out);
// The loop row of (n, v) into out[0 .. loopRowLength(width)). Throws UserError when n or v
// needs more than `width` digits.
void writeLoopRow(uint64_t n, uint64_t v, int width, int32_t* out);

// A separate-layout prompt read back from its tokens.
struct ParsedPrompt {
  uint64_t n = 0, x = 0;
  int64_t t = 0;
  int length = 0;  // prompt tokens before the padding
};
// Reads `N digits X digits T digits PAD...` from row[0 .. len); nullopt when the row is not such
// a prompt (missing markers, empty or over-long numbers, a non-PAD token after the prompt).
std::optional<ParsedPrompt> parsePromptRow(const int32_t* row, int64_t len);

}  // namespace deepladder::squaring
