// MLP (see mlp.h).
#include "trainers/mlp.h"

#include <ATen/record_function.h>

#include "trainers/cpu_gemm.h"
#include "trainers/fused_cpu_ops.h"
#include "trainers/swiglu_cpu.h"

namespace deepladder::trainers {

MLPImpl::MLPImpl(int64_t d_model, int64_t hidden_, MlpKind kind)
    : swiglu(kind == MlpKind::swiglu), hidden(hidden_) {
  const int64_t up_width = swiglu ? 2 * hidden : hidden;
  up = register_module("up",
                       torch::nn::Linear(torch::nn::LinearOptions(d_model, up_width).bias(false)));
  down = register_module("down",
                         torch::nn::Linear(torch::nn::LinearOptions(hidden, d_model).bias(false)));
}

torch::Tensor MLPImpl::forward(const torch::Tensor& x) {
  auto h = fastLinear(x, up->weight);  // (B,T,H) or (B,T,2H)
  {
    RECORD_FUNCTION("deepladder::mlp_act", std::vector<c10::IValue>());
    if (swiglu && useFusedCpuPath(h)) {
      h = swigluCpu(h);  // (B,T,H), one pass; the composition below is the reference
    } else if (swiglu) {
      auto gate_up = h.chunk(2, -1);
      h = torch::silu(gate_up[0]) * gate_up[1];  // (B,T,H)
    } else {
      h = torch::gelu(h);  // (B,T,H), exact erf GELU
    }
  }
  return fastLinear(h, down->weight);  // (B,T,C)
}

}  // namespace deepladder::trainers
