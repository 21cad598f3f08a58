// Fused boundary operator on the GPU: y = RMSNorm(h) + alpha * e over the last dimension
// (non-parametric RMSNorm), forward and backward, float32 or bfloat16 with float32 accumulation.
// The math and the CPU reference are in boundary_operator_reference.h. One block per row; one
// read of h and e and one write of y (the unfused ops make about seven passes).
// Host-side header: includable from plain C++ (no device code here).
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/matrix.h"

namespace deepladder::kernels {

// h, e, y: (rows, dim) of one dtype, contiguous, on the device. inv_rms: (rows) float32 device
// buffer that receives 1/rms per row for the backward (may be null). Asynchronous on `stream`.
void boundaryOperatorForward(const Matrix& h, const Matrix& e, const Matrix& y, float* inv_rms,
                             float alpha, float eps, cudaStream_t stream);

// h, dy, dh: (rows, dim), one dtype, contiguous. inv_rms: the forward's (rows) float32.
// de (rows, dim) is written when de.data is set; dalpha_rows (rows float32, sum dy*e per row)
// when not null, which needs e. Asynchronous on `stream`.
void boundaryOperatorBackward(const Matrix& h, const Matrix& e, const float* inv_rms,
                              const Matrix& dy, const Matrix& dh, const Matrix& de,
                              float* dalpha_rows, float alpha, cudaStream_t stream);

}  // namespace deepladder::kernels
