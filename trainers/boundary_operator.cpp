// Boundary operator (see boundary_operator.h).
#include "trainers/boundary_operator.h"

#include "trainers/rms_norm.h"

#ifdef DEEPLADDER_HAVE_CUDA_KERNELS
#include "trainers/cuda/boundary_operator_function.h"
#endif

namespace deepladder::trainers {

torch::Tensor parameterFreeRmsNorm(const torch::Tensor& h, double eps) {
  eps = normEpsilon(eps, h.scalar_type());
  return h * h.pow(2).mean(-1, /*keepdim=*/true).add(eps).rsqrt();
}

torch::Tensor boundaryOperator(const torch::Tensor& h, const torch::Tensor& e, double alpha,
                               double eps) {
  eps = normEpsilon(eps, h.scalar_type());
#ifdef DEEPLADDER_HAVE_CUDA_KERNELS
  if (h.is_cuda() && e.is_cuda() && h.sizes() == e.sizes() && h.scalar_type() == e.scalar_type() &&
      (h.scalar_type() == torch::kFloat32 || h.scalar_type() == torch::kBFloat16)) {
    return fused::boundaryOperator(h, e, alpha, eps);
  }
#endif
  torch::Tensor normed = parameterFreeRmsNorm(h, eps);
  if (alpha == 0.0) return normed;
  return normed + alpha * e;
}

}  // namespace deepladder::trainers
