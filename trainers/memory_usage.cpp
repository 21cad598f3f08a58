// Peak memory of a training process and the CPU allocator's set-up (see memory_usage.h).
#include "trainers/memory_usage.h"

#include <sys/resource.h>

#include <cstdlib>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// DEEPLADDER_TORCH_CUDA: the LibTorch this is built against has CUDA (trainers/CMakeLists.txt).
// Debian's CPU LibTorch ships the c10/cuda headers but no c10_cuda library, hence the guard.
#if defined(DEEPLADDER_TORCH_CUDA)
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace deepladder::trainers {

bool useReturningCpuAllocator() {
#if defined(__GLIBC__)
  const char* asked = std::getenv("DEEPLADDER_RETURN_FREED_MEMORY");
  if (asked == nullptr || std::string(asked) != "1") return false;
  for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES"})
    if (std::getenv(name) != nullptr) return false;
  // Setting either threshold also turns off glibc's dynamic raising of both.
  return mallopt(M_MMAP_THRESHOLD, 64 * 1024) == 1 && mallopt(M_TRIM_THRESHOLD, 1024 * 1024) == 1;
#else
  return false;
#endif
}

double peakMemoryBytes(const torch::Device& device) {
  if (device.is_cuda()) {
#if defined(DEEPLADDER_TORCH_CUDA)
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(
        device.has_index() ? device.index() : static_cast<c10::DeviceIndex>(0));
    return static_cast<double>(stats.allocated_bytes[0].peak);  // [0]: StatType::AGGREGATE
#else
    return 0;
#endif
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0;  // Linux reports KiB
}

}  // namespace deepladder::trainers
