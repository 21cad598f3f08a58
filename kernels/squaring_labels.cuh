// Squaring-task labels on the GPU: z_i = x_i^(2^T_i) mod N_i for a batch with 64-bit moduli,
// one thread per example. Odd moduli use Montgomery multiplication with __umul64hi (no division
// in the loop); even moduli a shift-and-add 128-bit product. CPU reference and the exact
// contract: squaring_labels_reference.h. Host-side header: includable from plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace deepladder::kernels {

// x, moduli, squarings, labels: (count) uint64 device arrays. Every modulus must be >= 1 (the
// caller validates; a 0 modulus yields label 0). Asynchronous on `stream`.
void squaringLabels(const uint64_t* x, const uint64_t* moduli, const uint64_t* squarings,
                    uint64_t* labels, int64_t count, cudaStream_t stream);

}  // namespace deepladder::kernels
