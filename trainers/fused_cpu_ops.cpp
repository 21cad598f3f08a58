// The fused-CPU-ops switch (see fused_cpu_ops.h).
#include "trainers/fused_cpu_ops.h"

#include <ATen/Parallel.h>

#include <atomic>
#include <mutex>
#include <set>

#include "core/fused_cpu_ops_rule.h"
#include "trainers/precision.h"

namespace deepladder::trainers {

namespace {
std::atomic<bool> fused_ops_enabled{true};
}  // namespace

bool fusedCpuOpsEnabled() {
  return fused_ops_enabled.load(std::memory_order_relaxed);
}

void setFusedCpuOpsEnabled(bool on) {
  fused_ops_enabled.store(on);
}

bool useFusedCpuPath(const torch::Tensor& x) {
  const Precision math = autocastEnabled(c10::DeviceType::CPU) ? Precision::bf16 : Precision::fp32;
  return fusedCpuOpsEnabled() && x.scalar_type() == torch::kFloat32 &&
         fusedCpuOpsRun(x.device().is_cpu(), math);
}

int fusedCpuLoopThreads(int64_t items) {
  std::mutex mutex;
  std::set<int> threads;
  at::parallel_for(0, items, 1, [&](int64_t, int64_t) {
    const std::lock_guard<std::mutex> lock(mutex);
    threads.insert(at::get_thread_num());
  });
  return static_cast<int>(threads.size());
}

}  // namespace deepladder::trainers
