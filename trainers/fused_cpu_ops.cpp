// The fused-CPU-ops switch (see fused_cpu_ops.h).
#include "trainers/fused_cpu_ops.h"

#include <atomic>

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
  return fusedCpuOpsEnabled() && x.device().is_cpu() && x.scalar_type() == torch::kFloat32 &&
         !autocastEnabled(c10::DeviceType::CPU);
}

}  // namespace deepladder::trainers
