// Semiprime moduli and labels of the squaring task ("One Layer Deeper"): N = p q with p of
// floor(b/2) bits and q of ceil(b/2) bits, each a random odd number with its top bit set accepted
// when prime, p != q and bit_length(N) = b exactly (else both are drawn again); or fixed p, q.
// The label of (N, x, T) is z = x^(2^T) mod N, computed by the shortcut pow(x, 2^T mod phi, N)
// with phi = (p - 1)(q - 1); `directSquaring` does the T squarings (the serial reference).
#pragma once

#include <cstdint>

#include "core/squaring/modular_arithmetic.h"
#include "core/squaring/random.h"

namespace deepladder::squaring {

// Moduli sizes the generator supports: products stay below 2^62 so 128-bit intermediate
// products never overflow, and b >= 5 is the smallest size with two distinct primes p != q.
inline constexpr int kMinModulusBits = 5;
inline constexpr int kMaxModulusBits = 62;

struct Semiprime {
  uint64_t p = 0;
  uint64_t q = 0;
  uint64_t n = 0;    // p q
  uint64_t phi = 0;  // (p - 1)(q - 1), Euler's totient of n
  int bits = 0;      // bit_length(n)
};

// N from fixed factors. Throws UserError when p or q is not prime, p == q, or N has more than
// kMaxModulusBits bits.
Semiprime semiprimeFromFactors(uint64_t p, uint64_t q);

// Throws UserError unless kMinModulusBits <= bits <= kMaxModulusBits; `what` names the field.
void checkModulusBits(int bits, const char* what = "modulus bits");

// A random odd number of exactly `bits` bits (top bit set), bits >= 2.
inline uint64_t randomOddWithTopBit(int bits, Rng& rng) {
  const uint64_t top = uint64_t{1} << (bits - 1);
  return top | (rng.next() & (top - 1)) | 1;
}

// A uniformly random prime of exactly `bits` bits (random odd with top bit set until prime).
uint64_t samplePrime(int bits, Rng& rng);

// A random semiprime of exactly `bits` bits as the competition draws it (see the file comment).
// Throws UserError for bits outside [kMinModulusBits, kMaxModulusBits].
Semiprime sampleSemiprime(int bits, Rng& rng);

// Throws UserError when t < 0 (T is a count of squarings).
void checkSquaringCount(int64_t t);

// 2^t mod phi (t >= 0; 2^0 = 1), the exponent of the shortcut.
inline uint64_t squaringExponent(int64_t t, uint64_t phi) {
  if (t < 64) return (uint64_t{1} << t) % phi;
  return powModGeneric(2, static_cast<uint64_t>(t), phi);
}

// A unit x, uniform in [1, N) with gcd(x, N) = 1 (drawn again until coprime).
inline uint64_t sampleUnit(const Semiprime& s, Rng& rng) {
  for (;;) {
    const uint64_t x = 1 + rng.below(s.n - 1);
    if (x % s.p != 0 && x % s.q != 0) return x;
  }
}

// z = x^(2^t) mod N by the shortcut (needs the factors). Throws UserError when t < 0.
uint64_t squaringAnswer(const Semiprime& s, uint64_t x, int64_t t);

// z = x^(2^t) mod n by t successive squarings (no factors needed; O(t)).
uint64_t directSquaring(uint64_t n, uint64_t x, int64_t t);

// The shortcut with the modulus' Montgomery set-up kept: for generating many labels of one N.
class SquaringOracle {
 public:
  explicit SquaringOracle(const Semiprime& s) : s_(s), mont_(s.n) {}
  const Semiprime& semiprime() const { return s_; }
  uint64_t answer(uint64_t x, int64_t t) const { return mont_.pow(x, squaringExponent(t, s_.phi)); }

 private:
  Semiprime s_;
  Montgomery mont_;  // n is odd: p, q are odd primes (fixed factors 2 are rejected)
};

}  // namespace deepladder::squaring
