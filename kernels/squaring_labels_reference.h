// Squaring-task labels, CPU reference (plain C++): z_i = x_i^(2^T_i) mod N_i for a batch, with
// 64-bit moduli and 128-bit products. Odd moduli use Montgomery multiplication (R = 2^64), even
// ones a plain 128-bit product and remainder. The CUDA kernel (squaring_labels.cuh) must match
// it. A minimal reimplementation of core/squaring/modular_arithmetic.h: kernels/ may not link
// core.
#pragma once

#include <cstdint>

namespace deepladder::kernels {

// x, moduli, squarings, labels: (count). Every modulus must be >= 1 (throws otherwise);
// x may be >= the modulus (it is reduced first). Modulus 1 gives 0.
void squaringLabelsReference(const uint64_t* x, const uint64_t* moduli, const uint64_t* squarings,
                             uint64_t* labels, int64_t count);

// One label: x^(2^T) mod n by T successive modular squarings.
uint64_t squaringLabel(uint64_t x, uint64_t n, uint64_t T);

}  // namespace deepladder::kernels
