// Tests of the serial task as a loop of single squarings (core/squaring/loop_format.h): the
// intermediate squarings deep supervision checks against, worked out by hand for N = 35, the loop
// row's tokens and parsing a prompt row back.
#include <gtest/gtest.h>

#include <vector>

#include "core/errors.h"
#include "core/squaring/loop_format.h"
#include "core/squaring/tiers.h"
#include "core/squaring/tokens.h"

namespace sq = deepladder::squaring;
using deepladder::UserError;

namespace {

std::vector<int32_t> digits(std::initializer_list<int> ds) {
  std::vector<int32_t> out;
  for (int d : ds) out.push_back(sq::kDigitZero + d);
  return out;
}

}  // namespace

TEST(LoopFormat, IntermediateSquaringsByHandForN35) {
  // x = 2: 2^2 = 4, 4^2 = 16, 16^2 = 256 = 7 * 35 + 11, 11^2 = 121 = 3 * 35 + 16.
  EXPECT_EQ(sq::intermediateSquarings(35, 2, 4), (std::vector<uint64_t>{4, 16, 11, 16}));
  // x = 3: 9, 81 = 2 * 35 + 11, 121 = 16, 256 = 11.
  EXPECT_EQ(sq::intermediateSquarings(35, 3, 4), (std::vector<uint64_t>{9, 11, 16, 11}));
  // x = 6: 36 = 1, then 1 for ever.
  EXPECT_EQ(sq::intermediateSquarings(35, 6, 3), (std::vector<uint64_t>{1, 1, 1}));
  EXPECT_TRUE(sq::intermediateSquarings(35, 2, 0).empty());
  // The last one is the prompt's answer x^(2^T) mod N (E1's modulus, a few prompts).
  for (uint64_t x : {2u, 17u, 100u, 322u}) {
    uint64_t z = x;
    for (int k = 0; k < 6; ++k) z = z * z % 323;
    EXPECT_EQ(sq::intermediateSquarings(323, x, 6).back(), z) << x;
  }
}

TEST(LoopFormat, LoopRowWritesNumbersOnFixedPlacesWithTOne) {
  // E1: the largest modulus has 11 bits (OOD sizes 10, 11), so W = 4 digits.
  const int w = sq::loopDigitWidth(sq::tierPreset("E1"));
  ASSERT_EQ(w, 4);
  EXPECT_EQ(sq::loopRowLength(w), 12);
  EXPECT_EQ(sq::loopSlotStart(w), 6);
  std::vector<int32_t> row(12);
  sq::writeLoopRow(323, 16, w, row.data());
  std::vector<int32_t> expected{sq::kTokenN};
  for (int32_t t : digits({0, 3, 2, 3})) expected.push_back(t);
  expected.push_back(sq::kTokenX);
  for (int32_t t : digits({0, 0, 1, 6})) expected.push_back(t);
  expected.push_back(sq::kTokenT);
  expected.push_back(sq::kDigitZero + 1);
  EXPECT_EQ(row, expected);
  std::vector<int32_t> four(4);
  sq::writeFixedWidthDigits(7, 4, four.data());
  EXPECT_EQ(four, digits({0, 0, 0, 7}));
  EXPECT_THROW(sq::writeFixedWidthDigits(12345, 4, four.data()), UserError);
}

TEST(LoopFormat, ParsesSeparateLayoutPromptsBack) {
  std::vector<int32_t> row = sq::promptTokens(323, 45, 12);
  const int length = static_cast<int>(row.size());
  row.resize(16, sq::kPad);
  const auto p = sq::parsePromptRow(row.data(), static_cast<int64_t>(row.size()));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->n, 323u);
  EXPECT_EQ(p->x, 45u);
  EXPECT_EQ(p->t, 12);
  EXPECT_EQ(p->length, length);
  // Not prompts: a token after the padding starts, a missing marker, an empty number.
  std::vector<int32_t> bad = row;
  bad.back() = sq::kDigitZero;
  EXPECT_FALSE(sq::parsePromptRow(bad.data(), static_cast<int64_t>(bad.size())));
  bad = row;
  bad[0] = sq::kTokenX;
  EXPECT_FALSE(sq::parsePromptRow(bad.data(), static_cast<int64_t>(bad.size())));
  const std::vector<int32_t> empty_x{sq::kTokenN, sq::kDigitZero + 5, sq::kTokenX, sq::kTokenT,
                                     sq::kDigitZero + 1};
  EXPECT_FALSE(sq::parsePromptRow(empty_x.data(), 5));
}
