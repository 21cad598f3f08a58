// The fused-CPU-ops switch (see fused_cpu_ops.h).
#include "trainers/fused_cpu_ops.h"

#include <atomic>

#include "core/fused_cpu_ops_rule.h"
#include "trainers/precision.h"

namespace deepladder::trainers {

namespace {
std::atomic<bool> enabled{true};
}  // namespace

bool fusedCpuOpsEnabled() {
  return enabled.load(std::memory_order_relaxed);
}

void setFusedCpuOpsEnabled(bool on) {
  enabled.store(on);
}

bool useFusedCpuPath(const torch::Tensor& x) {
  const Precision math = autocastEnabled(c10::DeviceType::CPU) ? Precision::bf16 : Precision::fp32;
  return fusedCpuOpsEnabled() && x.scalar_type() == torch::kFloat32 &&
         fusedCpuOpsRun(x.device().is_cpu(), math);
}

}  // namespace deepladder::trainers
