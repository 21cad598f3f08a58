// Semiprime sampling and squaring labels (see semiprime.h).
#include "core/squaring/semiprime.h"

#include <string>

#include "core/errors.h"

namespace deepladder::squaring {

void checkModulusBits(int bits, const char* what) {
  if (bits < kMinModulusBits || bits > kMaxModulusBits)
    throw UserError(std::string(what) + ": " + std::to_string(bits) +
                    " bits is out of range. Use " + std::to_string(kMinModulusBits) + " to " +
                    std::to_string(kMaxModulusBits) +
                    " bits (products must fit 128-bit arithmetic; 5 is the smallest size with "
                    "two distinct primes)");
}

void checkSquaringCount(int64_t t) {
  if (t < 0)
    throw UserError("T = " + std::to_string(t) + ": the number of squarings must be 0 or more");
}

Semiprime semiprimeFromFactors(uint64_t p, uint64_t q) {
  for (uint64_t f : {p, q}) {
    if (!isPrime(f))
      throw UserError("factor " + std::to_string(f) +
                      " is not prime: N must be a semiprime p q with p, q odd primes");
    if (f == 2) throw UserError("factor 2: the squaring task uses odd primes p, q (N must be odd)");
  }
  if (p == q)
    throw UserError("p = q = " + std::to_string(p) +
                    ": N must be a product of two distinct primes");
  const u128 product = static_cast<u128>(p) * q;
  if (product >> kMaxModulusBits)
    throw UserError("N = " + std::to_string(p) + " * " + std::to_string(q) + " has more than " +
                    std::to_string(kMaxModulusBits) + " bits; use smaller factors");
  Semiprime s;
  s.p = p;
  s.q = q;
  s.n = static_cast<uint64_t>(product);
  s.phi = (p - 1) * (q - 1);
  s.bits = bitLength(s.n);
  return s;
}

uint64_t samplePrime(int bits, Rng& rng) {
  for (;;) {
    const uint64_t candidate = randomOddWithTopBit(bits, rng);
    if (isPrimeFast(candidate)) return candidate;
  }
}

Semiprime sampleSemiprime(int bits, Rng& rng) {
  checkModulusBits(bits);
  const int p_bits = bits / 2;
  const int q_bits = bits - p_bits;
  for (;;) {
    const uint64_t p = samplePrime(p_bits, rng);
    const uint64_t q = samplePrime(q_bits, rng);
    if (p == q) continue;
    const uint64_t n = p * q;  // < 2^62: no overflow
    if (bitLength(n) != bits) continue;
    Semiprime s;
    s.p = p;
    s.q = q;
    s.n = n;
    s.phi = (p - 1) * (q - 1);
    s.bits = bits;
    return s;
  }
}

uint64_t squaringAnswer(const Semiprime& s, uint64_t x, int64_t t) {
  checkSquaringCount(t);
  return Montgomery(s.n).pow(x, squaringExponent(t, s.phi));
}

uint64_t directSquaring(uint64_t n, uint64_t x, int64_t t) {
  uint64_t z = x % n;
  for (int64_t i = 0; i < t; ++i) z = mulModGeneric(z, z, n);
  return z;
}

}  // namespace deepladder::squaring
