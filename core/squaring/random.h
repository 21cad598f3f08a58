// The squaring task's random numbers: xoshiro256** seeded through splitmix64, and unbiased
// integers below a bound (Lemire's multiply-and-reject). Written out here, not taken from
// <random>, so a seed gives the same data on every compiler and standard library.
#pragma once

#include <cstdint>

#include "core/squaring/modular_arithmetic.h"

namespace deepladder::squaring {

// splitmix64 step: also used to derive independent stream seeds from (seed, stream id).
inline uint64_t splitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  // `stream` separates the draws of different files made from one seed.
  explicit Rng(uint64_t seed, uint64_t stream = 0) {
    uint64_t state = seed ^ (stream * 0xd1b54a32d192ed03ULL);
    for (auto& word : s_) word = splitMix64(state);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, bound) for bound >= 1, without modulo bias.
  uint64_t below(uint64_t bound) {
    u128 product = static_cast<u128>(next()) * bound;
    uint64_t low = static_cast<uint64_t>(product);
    if (low < bound) {
      const uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        product = static_cast<u128>(next()) * bound;
        low = static_cast<uint64_t>(product);
      }
    }
    return static_cast<uint64_t>(product >> 64);
  }

  // Uniform in [lo, hi] (inclusive).
  uint64_t between(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace deepladder::squaring
