// Intermediate squarings, the loop row and prompt parsing (see loop_format.h).
#include "core/squaring/loop_format.h"

#include <string>

#include "core/errors.h"
#include "core/squaring/modular_arithmetic.h"
#include "core/squaring/tokens.h"

namespace deepladder::squaring {

std::vector<uint64_t> intermediateSquarings(uint64_t n, uint64_t x, int64_t t) {
  std::vector<uint64_t> out;
  out.reserve(static_cast<size_t>(t > 0 ? t : 0));
  uint64_t v = x % n;
  for (int64_t k = 1; k <= t; ++k) {
    v = mulModGeneric(v, v, n);
    out.push_back(v);
  }
  return out;
}

int loopDigitWidth(const TierPreset& tier) {
  return answerLengthBound(tier.maxBits());
}

void writeFixedWidthDigits(uint64_t v, int width, int32_t* out) {
  if (decimalDigitCount(v) > width)
    throw UserError("loop row: " + std::to_string(v) + " has more than " + std::to_string(width) +
                    " digits; the loop's digit width is the tier's largest modulus");
  for (int i = width - 1; i >= 0; --i) {
    out[i] = kDigitZero + static_cast<int32_t>(v % 10);
    v /= 10;
  }
}

void writeLoopRow(uint64_t n, uint64_t v, int width, int32_t* out) {
  out[0] = kTokenN;
  writeFixedWidthDigits(n, width, out + 1);
  out[width + 1] = kTokenX;
  writeFixedWidthDigits(v, width, out + width + 2);
  out[2 * width + 2] = kTokenT;
  out[2 * width + 3] = kDigitZero + 1;
}

namespace {

bool isDigit(int32_t token) {
  return token >= kDigitZero && token <= kDigitZero + 9;
}

// The number written by the digit tokens from row[*i] on; advances *i past them. nullopt for
// none or more than 19.
std::optional<uint64_t> readNumber(const int32_t* row, int64_t len, int64_t* i) {
  uint64_t value = 0;
  int digits = 0;
  while (*i < len && isDigit(row[*i])) {
    if (++digits > 19) return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(row[*i] - kDigitZero);
    ++*i;
  }
  if (digits == 0) return std::nullopt;
  return value;
}

}  // namespace

std::optional<ParsedPrompt> parsePromptRow(const int32_t* row, int64_t len) {
  int64_t i = 0;
  ParsedPrompt p;
  if (i >= len || row[i++] != kTokenN) return std::nullopt;
  const auto n = readNumber(row, len, &i);
  if (!n || i >= len || row[i++] != kTokenX) return std::nullopt;
  const auto x = readNumber(row, len, &i);
  if (!x || i >= len || row[i++] != kTokenT) return std::nullopt;
  const auto t = readNumber(row, len, &i);
  if (!t) return std::nullopt;
  p.n = *n;
  p.x = *x;
  p.t = static_cast<int64_t>(*t);
  p.length = static_cast<int>(i);
  for (; i < len; ++i)
    if (row[i] != kPad) return std::nullopt;
  return p;
}

}  // namespace deepladder::squaring
