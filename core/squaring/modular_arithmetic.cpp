// Modular powers, gcd and deterministic Miller-Rabin (see modular_arithmetic.h).
#include "core/squaring/modular_arithmetic.h"

#include <vector>

namespace deepladder::squaring {

// --- generic and Montgomery powers ----------------------------------------------------------

uint64_t powModGeneric(uint64_t base, uint64_t exponent, uint64_t m) {
  if (m == 1) return 0;
  uint64_t result = 1;
  base %= m;
  while (exponent > 0) {
    if (exponent & 1) result = mulModGeneric(result, base, m);
    base = mulModGeneric(base, base, m);
    exponent >>= 1;
  }
  return result;
}

Montgomery::Montgomery(uint64_t odd_modulus) : n_(odd_modulus) {
  // Newton's iteration for n^-1 mod 2^64: each step doubles the correct low bits (n*n = 1 mod 8
  // gives 3 bits to start).
  uint64_t inverse = n_;
  for (int i = 0; i < 5; ++i) inverse *= 2 - n_ * inverse;
  n_inverse_ = inverse;
  r1_ = n_ == 1 ? 0 : (0 - n_) % n_;  // 2^64 mod n
  r2_ = n_ == 1 ? 0 : static_cast<uint64_t>(static_cast<u128>(r1_) * r1_ % n_);
}

uint64_t Montgomery::pow(uint64_t base, uint64_t exponent) const {
  if (n_ == 1) return 0;
  uint64_t result = r1_;
  uint64_t b = toMontgomery(base);
  while (exponent > 0) {
    if (exponent & 1) result = multiply(result, b);
    b = multiply(b, b);
    exponent >>= 1;
  }
  return fromMontgomery(result);
}

uint64_t powMod(uint64_t base, uint64_t exponent, uint64_t m) {
  if (m & 1) return Montgomery(m).pow(base, exponent);
  return powModGeneric(base, exponent, m);
}

uint64_t gcd(uint64_t a, uint64_t b) {
  if (a == 0) return b;
  if (b == 0) return a;
  const int shift = __builtin_ctzll(a | b);
  a >>= __builtin_ctzll(a);
  do {
    b >>= __builtin_ctzll(b);
    if (a > b) {
      const uint64_t t = a;
      a = b;
      b = t;
    }
    b -= a;
  } while (b != 0);
  return a << shift;
}

// --- primality ------------------------------------------------------------------------------

namespace {

constexpr uint64_t kMillerRabinBases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};

// One Miller-Rabin round: true when n (odd, > base) is a strong probable prime to `base`,
// with n - 1 = d 2^s, d odd.
bool strongProbablePrime(const Montgomery& mont, uint64_t base, uint64_t d, int s) {
  const uint64_t n = mont.modulus();
  const uint64_t one = mont.one();
  const uint64_t minus_one = mont.toMontgomery(n - 1);
  uint64_t x = mont.toMontgomery(mont.pow(base, d));
  if (x == one || x == minus_one) return true;
  for (int r = 1; r < s; ++r) {
    x = mont.multiply(x, x);
    if (x == minus_one) return true;
    if (x == one) return false;
  }
  return false;
}

constexpr uint64_t kSieveLimit = uint64_t{1} << 22;

// Odd-only sieve of Eratosthenes below kSieveLimit: bit i says whether 2 i + 1 is prime.
const std::vector<uint64_t>& smallPrimeBits() {
  static const std::vector<uint64_t> bits = [] {
    const uint64_t odd_count = kSieveLimit / 2;
    std::vector<bool> composite(odd_count, false);
    composite[0] = true;  // 1
    for (uint64_t i = 1; (2 * i + 1) * (2 * i + 1) < kSieveLimit; ++i) {
      if (composite[i]) continue;
      const uint64_t p = 2 * i + 1;
      for (uint64_t m = p * p; m < kSieveLimit; m += 2 * p) composite[m / 2] = true;
    }
    std::vector<uint64_t> words(odd_count / 64, 0);
    for (uint64_t i = 0; i < odd_count; ++i)
      if (!composite[i]) words[i / 64] |= uint64_t{1} << (i % 64);
    return words;
  }();
  return bits;
}

}  // namespace

bool isPrime(uint64_t n) {
  if (n < 2) return false;
  for (uint64_t p : kMillerRabinBases) {
    if (n == p) return true;
    if (n % p == 0) return false;
  }
  if (n < 41 * 41) return true;  // no prime factor <= 37 and below 41^2: prime
  uint64_t d = n - 1;
  int s = 0;
  while ((d & 1) == 0) {
    d >>= 1;
    ++s;
  }
  const Montgomery mont(n);
  for (uint64_t base : kMillerRabinBases)
    if (!strongProbablePrime(mont, base, d, s)) return false;
  return true;
}

// Below 3,215,031,751 (the smallest strong pseudoprime to bases 2, 3, 5 and 7, OEIS A014233)
// the first four bases already decide primality exactly, so the answer equals isPrime's.
constexpr uint64_t kFourBasesExactBelow = 3215031751ULL;

bool isPrimeFast(uint64_t n) {
  if (n >= kFourBasesExactBelow) return isPrime(n);
  if (n >= kSieveLimit) {
    for (uint64_t p : kMillerRabinBases)
      if (n % p == 0) return false;
    uint64_t d = n - 1;
    int s = 0;
    while ((d & 1) == 0) {
      d >>= 1;
      ++s;
    }
    const Montgomery mont(n);
    for (int i = 0; i < 4; ++i)
      if (!strongProbablePrime(mont, kMillerRabinBases[i], d, s)) return false;
    return true;
  }
  if (n == 2) return true;
  if ((n & 1) == 0) return false;
  const uint64_t i = n / 2;
  return (smallPrimeBits()[i / 64] >> (i % 64)) & 1;
}

}  // namespace deepladder::squaring
