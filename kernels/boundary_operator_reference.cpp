// Boundary operator, CPU reference (see boundary_operator_reference.h for the math).
#include "kernels/boundary_operator_reference.h"

#include <cmath>

namespace deepladder::kernels {

void boundaryOperatorForwardReference(const float* h, const float* e, float* y, float* inv_rms,
                                      int64_t rows, int64_t dim, float alpha, float eps) {
  for (int64_t row = 0; row < rows; ++row) {
    const float* hr = h + row * dim;  // (dim)
    const float* er = e + row * dim;
    float* yr = y + row * dim;
    double sum_squares = 0;
    for (int64_t c = 0; c < dim; ++c) sum_squares += static_cast<double>(hr[c]) * hr[c];
    const double r = 1.0 / std::sqrt(sum_squares / static_cast<double>(dim) + eps);
    if (inv_rms != nullptr) inv_rms[row] = static_cast<float>(r);
    for (int64_t c = 0; c < dim; ++c)
      yr[c] = static_cast<float>(hr[c] * r + static_cast<double>(alpha) * er[c]);
  }
}

void boundaryOperatorBackwardReference(const float* h, const float* e, const float* inv_rms,
                                       const float* dy, float* dh, float* de, float* dalpha_rows,
                                       int64_t rows, int64_t dim, float alpha) {
  for (int64_t row = 0; row < rows; ++row) {
    const float* hr = h + row * dim;  // (dim)
    const float* dyr = dy + row * dim;
    const double r = inv_rms[row];
    double dy_dot_n = 0;  // sum dy * n
    for (int64_t c = 0; c < dim; ++c) dy_dot_n += static_cast<double>(dyr[c]) * hr[c] * r;
    const double mean_dy_n = dy_dot_n / static_cast<double>(dim);
    float* dhr = dh + row * dim;
    for (int64_t c = 0; c < dim; ++c)
      dhr[c] = static_cast<float>(r * (dyr[c] - hr[c] * r * mean_dy_n));
    if (de != nullptr)
      for (int64_t c = 0; c < dim; ++c) de[row * dim + c] = alpha * dyr[c];
    if (dalpha_rows != nullptr) {
      const float* er = e + row * dim;
      double dot = 0;
      for (int64_t c = 0; c < dim; ++c) dot += static_cast<double>(dyr[c]) * er[c];
      dalpha_rows[row] = static_cast<float>(dot);
    }
  }
}

}  // namespace deepladder::kernels
