// Squaring-task labels, CPU reference (see squaring_labels_reference.h).
#include "kernels/squaring_labels_reference.h"

#include <stdexcept>
#include <string>

namespace deepladder::kernels {

namespace {

using u128 = unsigned __int128;

// Montgomery form modulo odd n: a * b * 2^-64 mod n for a, b < n (same algorithm as the kernel).
struct MontgomeryModulus {
  uint64_t n;
  uint64_t n_inverse;  // n^-1 mod 2^64
  uint64_t r2;         // 2^128 mod n

  explicit MontgomeryModulus(uint64_t odd_n) : n(odd_n) {
    uint64_t inverse = n;  // correct to 3 bits; Newton doubles them each step
    for (int i = 0; i < 5; ++i) inverse *= 2 - n * inverse;
    n_inverse = inverse;
    const uint64_t r1 = (0 - n) % n;  // 2^64 mod n
    r2 = static_cast<uint64_t>(static_cast<u128>(r1) * r1 % n);
  }

  uint64_t multiply(uint64_t a, uint64_t b) const {
    const u128 t = static_cast<u128>(a) * b;
    const uint64_t m = static_cast<uint64_t>(t) * n_inverse;
    const uint64_t mn_high = static_cast<uint64_t>((static_cast<u128>(m) * n) >> 64);
    const uint64_t t_high = static_cast<uint64_t>(t >> 64);
    return t_high >= mn_high ? t_high - mn_high : t_high - mn_high + n;
  }
};

}  // namespace

uint64_t squaringLabel(uint64_t x, uint64_t n, uint64_t T) {
  if (n == 0) throw std::invalid_argument("squaringLabel: modulus 0");
  if (n == 1) return 0;
  x %= n;
  if ((n & 1) == 0) {
    for (uint64_t t = 0; t < T; ++t) x = static_cast<uint64_t>(static_cast<u128>(x) * x % n);
    return x;
  }
  const MontgomeryModulus mont(n);
  uint64_t xm = mont.multiply(x, mont.r2);  // x * 2^64 mod n
  for (uint64_t t = 0; t < T; ++t) xm = mont.multiply(xm, xm);
  return mont.multiply(xm, 1);  // out of Montgomery form
}

void squaringLabelsReference(const uint64_t* x, const uint64_t* moduli, const uint64_t* squarings,
                             uint64_t* labels, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if (moduli[i] == 0)
      throw std::invalid_argument("squaringLabelsReference: modulus 0 at index " +
                                  std::to_string(i));
    labels[i] = squaringLabel(x[i], moduli[i], squarings[i]);
  }
}

}  // namespace deepladder::kernels
