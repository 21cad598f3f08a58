// Boundary operator, CPU reference (plain C++, float32 in and out, double accumulation). The
// CUDA kernel (boundary_operator.cuh) must match it; the trainer falls back to it on the CPU.
//
// Math, per row h, e of length d (the last dimension):
//   r      = 1 / sqrt(mean_c(h_c^2) + eps)             (non-parametric RMSNorm: no gain)
//   n      = h * r
//   y      = n + alpha * e                               forward
//   dh     = r * (dy - n * mean_c(dy_c * n_c))           backward, given dy
//   de     = alpha * dy
//   dalpha = sum_c dy_c * e_c                            (per row; the caller sums the rows)
#pragma once

#include <cstdint>

namespace deepladder::kernels {

// h, e, y: (rows, dim) contiguous. inv_rms (rows) receives r for the backward; may be null.
void boundaryOperatorForwardReference(const float* h, const float* e, float* y, float* inv_rms,
                                      int64_t rows, int64_t dim, float alpha, float eps);

// inv_rms: the forward's r per row. dh (rows, dim) is written; de (rows, dim) and
// dalpha_rows (rows, needs e) are written when not null.
void boundaryOperatorBackwardReference(const float* h, const float* e, const float* inv_rms,
                                       const float* dy, float* dh, float* de, float* dalpha_rows,
                                       int64_t rows, int64_t dim, float alpha);

}  // namespace deepladder::kernels
