// Modular arithmetic on 64-bit integers for the squaring task: 128-bit products, Montgomery
// multiplication for odd moduli (no division in the hot loop), modular powers, gcd, and the
// deterministic Miller-Rabin primality test (bases 2..37 are exact for every n < 2^64).
// Header-inline where the generator's hot path needs it; no allocation anywhere.
#pragma once

#include <cstdint>

namespace deepladder::squaring {

using u128 = unsigned __int128;

// Number of bits in v (0 for v = 0): bit_length in Python.
inline int bitLength(uint64_t v) {
  return v == 0 ? 0 : 64 - __builtin_clzll(v);
}

// Number of decimal digits of v (1 for v = 0).
inline int decimalDigitCount(uint64_t v) {
  int digits = 1;
  while (v >= 10) {
    v /= 10;
    ++digits;
  }
  return digits;
}

// (a * b) mod m for any m >= 1 with a, b < m (128-bit product and division).
inline uint64_t mulModGeneric(uint64_t a, uint64_t b, uint64_t m) {
  return static_cast<uint64_t>(static_cast<u128>(a) * b % m);
}

// base^exponent mod m for any m >= 1 (generic; the modulus may be even, e.g. phi(N)).
uint64_t powModGeneric(uint64_t base, uint64_t exponent, uint64_t m);

// Montgomery arithmetic modulo an odd n (any odd n < 2^64, R = 2^64). Values in Montgomery
// form are x * R mod n; `multiply` works on that form. Set-up costs one 128-bit division.
class Montgomery {
 public:
  explicit Montgomery(uint64_t odd_modulus);

  uint64_t modulus() const { return n_; }
  uint64_t toMontgomery(uint64_t x) const { return multiply(x % n_, r2_); }
  uint64_t fromMontgomery(uint64_t xm) const { return reduce(xm); }
  uint64_t one() const { return r1_; }  // 1 in Montgomery form

  // a * b * R^-1 mod n for a, b < n (Montgomery form in, Montgomery form out).
  uint64_t multiply(uint64_t a, uint64_t b) const {
    const u128 t = static_cast<u128>(a) * b;
    const uint64_t m = static_cast<uint64_t>(t) * n_inverse_;
    const uint64_t mn_high = static_cast<uint64_t>((static_cast<u128>(m) * n_) >> 64);
    const uint64_t t_high = static_cast<uint64_t>(t >> 64);
    // (t - m n) / R lies in (-n, n); the low words cancel exactly.
    return t_high >= mn_high ? t_high - mn_high : t_high - mn_high + n_;
  }

  // base^exponent mod n with plain (not Montgomery-form) input and output.
  uint64_t pow(uint64_t base, uint64_t exponent) const;

 private:
  uint64_t reduce(uint64_t xm) const {
    const uint64_t m = xm * n_inverse_;
    const uint64_t mn_high = static_cast<uint64_t>((static_cast<u128>(m) * n_) >> 64);
    return mn_high == 0 ? 0 : n_ - mn_high;
  }

  uint64_t n_;
  uint64_t n_inverse_;  // n^-1 mod 2^64
  uint64_t r1_;         // R mod n
  uint64_t r2_;         // R^2 mod n
};

// base^exponent mod m for any m >= 1 (Montgomery when m is odd, generic otherwise).
uint64_t powMod(uint64_t base, uint64_t exponent, uint64_t m);

// Greatest common divisor (binary algorithm; gcd(0, b) = b).
uint64_t gcd(uint64_t a, uint64_t b);

// Deterministic Miller-Rabin with bases 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37: exact for
// every 64-bit n (Sorenson and Webster 2015: these 12 bases suffice below 3.3e24).
bool isPrime(uint64_t n);

// Same answer as isPrime, faster for the semiprime sampler: n < 2^22 is looked up in a sieve
// built once, and n < 3,215,031,751 needs only the bases 2, 3, 5, 7 (exact there, A014233).
bool isPrimeFast(uint64_t n);

}  // namespace deepladder::squaring
