// RMSNorm (see rms_norm.h).
#include "trainers/rms_norm.h"

#include <ATen/record_function.h>

#include <limits>

#include "trainers/fused_cpu_ops.h"
#include "trainers/rms_norm_cpu.h"

namespace deepladder::trainers {

double normEpsilon(double configured, torch::ScalarType dtype) {
  if (configured > 0) return configured;
  // at::rms_norm with eps = None: numeric_limits<opmath_type<scalar_t>>::epsilon(), and the
  // opmath type of bfloat16 and float16 is float.
  if (dtype == torch::kFloat64) return std::numeric_limits<double>::epsilon();
  return std::numeric_limits<float>::epsilon();
}

RMSNormImpl::RMSNormImpl(int64_t dim, double eps_, bool learned_gain) : eps(eps_) {
  if (learned_gain) gain = register_parameter("gain", torch::ones({dim}));
}

torch::Tensor RMSNormImpl::forward(const torch::Tensor& x) {
  RECORD_FUNCTION("deepladder::rms_norm", std::vector<c10::IValue>());
  const double e = normEpsilon(eps, x.scalar_type());
  if (useFusedCpuPath(x)) return rmsNormCpu(x, gain, e);  // one pass; the composition below
  // (..., C): one reduction, one rsqrt, one or two multiplies.
  const torch::Tensor inv_rms = x.pow(2).mean(-1, /*keepdim=*/true).add_(e).rsqrt_();  // (..., 1)
  return gain.defined() ? x * inv_rms * gain : x * inv_rms;
}

}  // namespace deepladder::trainers
