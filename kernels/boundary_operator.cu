// Fused boundary operator kernels (see boundary_operator.cuh and, for the math,
// boundary_operator_reference.h). One thread block per row: a block-wide sum of squares, then
// one elementwise pass. Rows are read in 16-byte packs when the width and alignment allow.
#include <cstdint>

#include "kernels/boundary_operator.cuh"
#include "kernels/cuda_common.cuh"

namespace deepladder::kernels {

namespace {

template <typename T, int kWidth>
struct alignas(sizeof(T) * kWidth) Pack {
  T v[kWidth];
};

// --- kernels --------------------------------------------------------------------------------

template <typename T, int kWidth>
static __global__ void boundaryForwardKernel(const T* __restrict__ h, const T* __restrict__ e,
                                             T* __restrict__ y, float* __restrict__ inv_rms,
                                             int64_t dim, float alpha, float eps) {
  __shared__ float scratch[32];
  using P = Pack<T, kWidth>;
  const int64_t row = blockIdx.x;
  const P* hr = reinterpret_cast<const P*>(h + row * dim);  // (dim / kWidth)
  const P* er = reinterpret_cast<const P*>(e + row * dim);
  P* yr = reinterpret_cast<P*>(y + row * dim);
  const int64_t packs = dim / kWidth;

  float sum_squares = 0.0f;
  for (int64_t i = threadIdx.x; i < packs; i += blockDim.x) {
    const P hp = hr[i];
#pragma unroll
    for (int k = 0; k < kWidth; ++k) {
      const float v = toFloat(hp.v[k]);
      sum_squares += v * v;
    }
  }
  sum_squares = blockSum(sum_squares, scratch);
  const float r = rsqrtf(sum_squares / static_cast<float>(dim) + eps);
  if (threadIdx.x == 0 && inv_rms != nullptr) inv_rms[row] = r;

  for (int64_t i = threadIdx.x; i < packs; i += blockDim.x) {
    const P hp = hr[i];
    const P ep = er[i];
    P out;
#pragma unroll
    for (int k = 0; k < kWidth; ++k)
      out.v[k] = fromFloat<T>(toFloat(hp.v[k]) * r + alpha * toFloat(ep.v[k]));
    yr[i] = out;
  }
}

template <typename T, int kWidth>
static __global__ void boundaryBackwardKernel(const T* __restrict__ h, const T* __restrict__ e,
                                              const float* __restrict__ inv_rms,
                                              const T* __restrict__ dy, T* __restrict__ dh,
                                              T* __restrict__ de, float* __restrict__ dalpha_rows,
                                              int64_t dim, float alpha) {
  __shared__ float scratch[32];
  using P = Pack<T, kWidth>;
  const int64_t row = blockIdx.x;
  const P* hr = reinterpret_cast<const P*>(h + row * dim);  // (dim / kWidth)
  const P* dyr = reinterpret_cast<const P*>(dy + row * dim);
  P* dhr = reinterpret_cast<P*>(dh + row * dim);
  const int64_t packs = dim / kWidth;
  const float r = inv_rms[row];

  float dy_dot_h = 0.0f;
  for (int64_t i = threadIdx.x; i < packs; i += blockDim.x) {
    const P hp = hr[i];
    const P gp = dyr[i];
#pragma unroll
    for (int k = 0; k < kWidth; ++k) dy_dot_h += toFloat(gp.v[k]) * toFloat(hp.v[k]);
  }
  // mean_c(dy_c n_c) = r * sum(dy h) / dim
  const float mean_dy_n = blockSum(dy_dot_h, scratch) * r / static_cast<float>(dim);

  if (dalpha_rows != nullptr) {  // uniform over the block
    const P* er = reinterpret_cast<const P*>(e + row * dim);
    float dy_dot_e = 0.0f;
    for (int64_t i = threadIdx.x; i < packs; i += blockDim.x) {
      const P ep = er[i];
      const P gp = dyr[i];
#pragma unroll
      for (int k = 0; k < kWidth; ++k) dy_dot_e += toFloat(gp.v[k]) * toFloat(ep.v[k]);
    }
    dy_dot_e = blockSum(dy_dot_e, scratch);
    if (threadIdx.x == 0) dalpha_rows[row] = dy_dot_e;
  }

  P* der = de != nullptr ? reinterpret_cast<P*>(de + row * dim) : nullptr;
  for (int64_t i = threadIdx.x; i < packs; i += blockDim.x) {
    const P hp = hr[i];
    const P gp = dyr[i];
    P grad_h;
    P grad_e;
#pragma unroll
    for (int k = 0; k < kWidth; ++k) {
      const float g = toFloat(gp.v[k]);
      const float n = toFloat(hp.v[k]) * r;
      grad_h.v[k] = fromFloat<T>(r * (g - n * mean_dy_n));
      grad_e.v[k] = fromFloat<T>(alpha * g);
    }
    dhr[i] = grad_h;
    if (der != nullptr) der[i] = grad_e;
  }
}

// --- launchers ------------------------------------------------------------------------------

bool aligned16(const void* p) {
  return p == nullptr || reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

int threadsForPacks(int64_t packs) {
  int64_t threads = (packs + 31) / 32 * 32;
  if (threads < 32) threads = 32;
  if (threads > 512) threads = 512;
  return static_cast<int>(threads);
}

template <typename T>
void launchForward(const T* h, const T* e, T* y, float* inv_rms, int64_t rows, int64_t dim,
                   float alpha, float eps, cudaStream_t stream) {
  constexpr int kWide = 16 / sizeof(T);
  const bool wide = dim % kWide == 0 && aligned16(h) && aligned16(e) && aligned16(y);
  const dim3 grid(static_cast<unsigned>(rows));
  if (wide)
    boundaryForwardKernel<T, kWide>
        <<<grid, threadsForPacks(dim / kWide), 0, stream>>>(h, e, y, inv_rms, dim, alpha, eps);
  else
    boundaryForwardKernel<T, 1>
        <<<grid, threadsForPacks(dim), 0, stream>>>(h, e, y, inv_rms, dim, alpha, eps);
}

template <typename T>
void launchBackward(const T* h, const T* e, const float* inv_rms, const T* dy, T* dh, T* de,
                    float* dalpha_rows, int64_t rows, int64_t dim, float alpha,
                    cudaStream_t stream) {
  constexpr int kWide = 16 / sizeof(T);
  const bool wide = dim % kWide == 0 && aligned16(h) && aligned16(e) && aligned16(dy) &&
                    aligned16(dh) && aligned16(de);
  const dim3 grid(static_cast<unsigned>(rows));
  if (wide)
    boundaryBackwardKernel<T, kWide><<<grid, threadsForPacks(dim / kWide), 0, stream>>>(
        h, e, inv_rms, dy, dh, de, dalpha_rows, dim, alpha);
  else
    boundaryBackwardKernel<T, 1><<<grid, threadsForPacks(dim), 0, stream>>>(
        h, e, inv_rms, dy, dh, de, dalpha_rows, dim, alpha);
}

}  // namespace

// --- entry points ---------------------------------------------------------------------------

void boundaryOperatorForward(const Matrix& h, const Matrix& e, const Matrix& y, float* inv_rms,
                             float alpha, float eps, cudaStream_t stream) {
  constexpr const char* kOp = "boundaryOperatorForward";
  requireMatrix(kOp, "e", e, h.dtype, h.rows, h.cols);
  requireMatrix(kOp, "h", h, h.dtype, h.rows, h.cols);
  requireMatrix(kOp, "y", y, h.dtype, h.rows, h.cols);
  if (h.rows == 0 || h.cols == 0) return;
  if (h.rows > 0x7fffffff) throw std::invalid_argument("boundaryOperatorForward: too many rows");
  if (h.dtype == DType::kFloat32)
    launchForward(static_cast<const float*>(h.data), static_cast<const float*>(e.data),
                  static_cast<float*>(y.data), inv_rms, h.rows, h.cols, alpha, eps, stream);
  else
    launchForward(static_cast<const __nv_bfloat16*>(h.data),
                  static_cast<const __nv_bfloat16*>(e.data), static_cast<__nv_bfloat16*>(y.data),
                  inv_rms, h.rows, h.cols, alpha, eps, stream);
  checkLaunch(kOp);
}

void boundaryOperatorBackward(const Matrix& h, const Matrix& e, const float* inv_rms,
                              const Matrix& dy, const Matrix& dh, const Matrix& de,
                              float* dalpha_rows, float alpha, cudaStream_t stream) {
  constexpr const char* kOp = "boundaryOperatorBackward";
  requireMatrix(kOp, "h", h, h.dtype, h.rows, h.cols);
  requireMatrix(kOp, "dy", dy, h.dtype, h.rows, h.cols);
  requireMatrix(kOp, "dh", dh, h.dtype, h.rows, h.cols);
  if (de.data != nullptr) requireMatrix(kOp, "de", de, h.dtype, h.rows, h.cols);
  if (dalpha_rows != nullptr)
    requireMatrix(kOp, "e (needed for dalpha)", e, h.dtype, h.rows, h.cols);
  if (inv_rms == nullptr && h.rows > 0)
    throw std::invalid_argument("boundaryOperatorBackward: inv_rms is null");
  if (h.rows == 0 || h.cols == 0) return;
  if (h.rows > 0x7fffffff) throw std::invalid_argument("boundaryOperatorBackward: too many rows");
  if (h.dtype == DType::kFloat32)
    launchBackward(static_cast<const float*>(h.data), static_cast<const float*>(e.data), inv_rms,
                   static_cast<const float*>(dy.data), static_cast<float*>(dh.data),
                   static_cast<float*>(de.data), dalpha_rows, h.rows, h.cols, alpha, stream);
  else
    launchBackward(
        static_cast<const __nv_bfloat16*>(h.data), static_cast<const __nv_bfloat16*>(e.data),
        inv_rms, static_cast<const __nv_bfloat16*>(dy.data), static_cast<__nv_bfloat16*>(dh.data),
        static_cast<__nv_bfloat16*>(de.data), dalpha_rows, h.rows, h.cols, alpha, stream);
  checkLaunch(kOp);
}

}  // namespace deepladder::kernels
