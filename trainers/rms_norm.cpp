// RMSNorm (see rms_norm.h).
#include "trainers/rms_norm.h"

namespace deepladder::trainers {

RMSNormImpl::RMSNormImpl(int64_t dim, double eps_) : eps(eps_) {
  gain = register_parameter("gain", torch::ones({dim}));
}

torch::Tensor RMSNormImpl::forward(const torch::Tensor& x) {
  // (..., C): one reduction, one rsqrt, two multiplies.
  const torch::Tensor inv_rms = x.pow(2).mean(-1, /*keepdim=*/true).add_(eps).rsqrt_();  // (..., 1)
  return x * inv_rms * gain;
}

}  // namespace deepladder::trainers
