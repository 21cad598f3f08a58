// Squaring-label kernel (see squaring_labels.cuh and squaring_labels_reference.h).
#include <cstdint>

#include "kernels/cuda_common.cuh"
#include "kernels/squaring_labels.cuh"

namespace deepladder::kernels {

namespace {

// a * b * 2^-64 mod n for odd n and a, b < n (Montgomery; n_inverse = n^-1 mod 2^64).
__device__ __forceinline__ uint64_t montgomeryMultiply(uint64_t a, uint64_t b, uint64_t n,
                                                       uint64_t n_inverse) {
  const uint64_t t_low = a * b;
  const uint64_t t_high = __umul64hi(a, b);
  const uint64_t m = t_low * n_inverse;
  const uint64_t mn_high = __umul64hi(m, n);
  // (t - m n) / 2^64 lies in (-n, n); the low words cancel exactly.
  return t_high >= mn_high ? t_high - mn_high : t_high - mn_high + n;
}

// (a + b) mod n for a, b < n, without overflow.
__device__ __forceinline__ uint64_t addMod(uint64_t a, uint64_t b, uint64_t n) {
  return a >= n - b ? a - (n - b) : a + b;
}

// a * b mod n for any n >= 2, a, b < n: double and add over the bits of b.
__device__ uint64_t mulModShiftAdd(uint64_t a, uint64_t b, uint64_t n) {
  uint64_t result = 0;
  for (int bit = 63; bit >= 0; --bit) {
    result = addMod(result, result, n);
    if ((b >> bit) & 1) result = addMod(result, a, n);
  }
  return result;
}

__device__ uint64_t squaringLabelDevice(uint64_t x, uint64_t n, uint64_t squarings) {
  if (n <= 1) return 0;
  x %= n;
  if ((n & 1) == 0) {
    for (uint64_t t = 0; t < squarings; ++t) x = mulModShiftAdd(x, x, n);
    return x;
  }
  uint64_t n_inverse = n;  // correct to 3 bits; Newton doubles them each step
  for (int i = 0; i < 5; ++i) n_inverse *= 2 - n * n_inverse;
  // 2^128 mod n: start from 2^64 mod n and double 64 times.
  uint64_t r2 = (0 - n) % n;
  for (int i = 0; i < 64; ++i) r2 = addMod(r2, r2, n);
  uint64_t xm = montgomeryMultiply(x, r2, n, n_inverse);  // x 2^64 mod n
  for (uint64_t t = 0; t < squarings; ++t) xm = montgomeryMultiply(xm, xm, n, n_inverse);
  return montgomeryMultiply(xm, 1, n, n_inverse);
}

static __global__ void squaringLabelsKernel(const uint64_t* __restrict__ x,
                                            const uint64_t* __restrict__ moduli,
                                            const uint64_t* __restrict__ squarings,
                                            uint64_t* __restrict__ labels, int64_t count) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  labels[i] = squaringLabelDevice(x[i], moduli[i], squarings[i]);
}

}  // namespace

void squaringLabels(const uint64_t* x, const uint64_t* moduli, const uint64_t* squarings,
                    uint64_t* labels, int64_t count, cudaStream_t stream) {
  constexpr const char* kOp = "squaringLabels";
  if (count < 0) throw std::invalid_argument("squaringLabels: negative count");
  if (count == 0) return;
  if (x == nullptr || moduli == nullptr || squarings == nullptr || labels == nullptr)
    throw std::invalid_argument("squaringLabels: null array");
  constexpr int kThreadsPerBlock = 128;
  const int64_t blocks = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
  if (blocks > 0x7fffffff) throw std::invalid_argument("squaringLabels: batch too large");
  squaringLabelsKernel<<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, stream>>>(
      x, moduli, squarings, labels, count);
  checkLaunch(kOp);
}

}  // namespace deepladder::kernels
