// Squaring-label CPU reference (kernels/squaring_labels_reference.h) against T direct
// squarings with a 128-bit product and remainder, and against values from Python's pow.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

#include "kernels/squaring_labels_reference.h"

namespace deepladder::kernels {
namespace {

uint64_t naiveSquarings(uint64_t x, uint64_t n, uint64_t T) {
  uint64_t z = x % n;
  for (uint64_t t = 0; t < T; ++t) z = static_cast<uint64_t>((unsigned __int128)z * z % n);
  return z;
}

TEST(SquaringLabelsReference, MatchesDirectSquaringsForOddEvenAndHugeModuli) {
  std::mt19937_64 rng(20261130);
  std::vector<uint64_t> x, n, T;
  const uint64_t special[] = {1,
                              2,
                              3,
                              4,
                              15,
                              1000003,
                              (1ull << 32) + 15,
                              ~0ull,
                              ~0ull - 1,
                              (1ull << 63) + 1,
                              16140901064495857657ull};
  for (uint64_t m : special) n.push_back(m);
  for (int i = 0; i < 200; ++i) {
    const int bits = 2 + static_cast<int>(rng() % 63);                   // 2 .. 64 bits
    n.push_back((rng() >> (64 - bits)) | 1ull);                          // odd
    n.push_back(std::max<uint64_t>(2, (rng() >> (64 - bits)) & ~1ull));  // even
  }
  for (size_t i = 0; i < n.size(); ++i) {
    x.push_back(i % 5 == 0 ? rng() : rng() % n[i]);  // some x >= n
    T.push_back(i % 7 == 0 ? 0 : rng() % 300);
  }
  std::vector<uint64_t> labels(n.size());
  squaringLabelsReference(x.data(), n.data(), T.data(), labels.data(), int64_t(n.size()));
  for (size_t i = 0; i < n.size(); ++i)
    ASSERT_EQ(labels[i], naiveSquarings(x[i], n[i], T[i]))
        << "x " << x[i] << " n " << n[i] << " T " << T[i];
}

TEST(SquaringLabelsReference, MatchesPythonPow) {
  // Values from /usr/bin/python3: pow(3, 2**5, 1000003), pow(5, 2**20, 2999999811),
  // pow(2, 2**10, 2**64 - 59), pow(123456789, 2**1000, (2**61 - 1) * 7).
  EXPECT_EQ(squaringLabel(3, 1000003, 5), 807954u);
  EXPECT_EQ(squaringLabel(5, 2999999811ull, 20), 2186434657ull);
  EXPECT_EQ(squaringLabel(2, 18446744073709551557ull, 10), 1616525033669552648ull);
  EXPECT_EQ(squaringLabel(123456789, 16140901064495857657ull, 1000), 13148621509914446543ull);
}

TEST(SquaringLabelsReference, ModulusOneGivesZeroAndModulusZeroThrows) {
  EXPECT_EQ(squaringLabel(12345, 1, 3), 0u);
  const uint64_t x = 3, n = 0, T = 1;
  uint64_t label = 0;
  EXPECT_THROW(squaringLabelsReference(&x, &n, &T, &label, 1), std::invalid_argument);
}

}  // namespace
}  // namespace deepladder::kernels
