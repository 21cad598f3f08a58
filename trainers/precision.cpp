// Autocast state and the bf16 capability check (see precision.h).
#include "trainers/precision.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include "core/errors.h"

// LibTorch 2.4 replaced the per-device autocast calls (is_cpu_enabled, set_autocast_gpu_dtype,
// ...) by device-typed ones (is_autocast_enabled(kCPU), set_autocast_dtype(kCUDA, ...)).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define DEEPLADDER_DEVICE_TYPED_AUTOCAST 1
#endif

namespace deepladder::trainers {

namespace {

void apply(const AutocastState& s) {
#ifdef DEEPLADDER_DEVICE_TYPED_AUTOCAST
  at::autocast::set_autocast_dtype(at::kCPU, s.cpu_dtype);
  at::autocast::set_autocast_dtype(at::kCUDA, s.cuda_dtype);
  at::autocast::set_autocast_enabled(at::kCPU, s.cpu);
  at::autocast::set_autocast_enabled(at::kCUDA, s.cuda);
#else
  at::autocast::set_autocast_cpu_dtype(s.cpu_dtype);
  at::autocast::set_autocast_gpu_dtype(s.cuda_dtype);
  at::autocast::set_cpu_enabled(s.cpu);
  at::autocast::set_enabled(s.cuda);
#endif
}

}  // namespace

bool cpuSupportsBf16() {
#if defined(__x86_64__) && defined(__GNUC__)
  // Every CPU with AMX-BF16 (Sapphire Rapids and later) also has AVX512-BF16.
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512bf16");
#else
  return false;  // other architectures: not detected, so bf16 on the CPU is refused
#endif
}

void requirePrecisionSupported(Precision precision, const torch::Device& device) {
  if (precision != Precision::bf16 || !device.is_cpu() || cpuSupportsBf16()) return;
  throw UserError(
      "train.precision = \"bf16\": this CPU has no native bfloat16 (AVX512-BF16 or AMX-BF16), "
      "so bfloat16 matmuls would be emulated and slower than float32. Use precision = \"fp32\" "
      "on this machine, or train on a GPU (device = \"cuda\")");
}

bool autocastEnabled(c10::DeviceType device_type) {
#ifdef DEEPLADDER_DEVICE_TYPED_AUTOCAST
  return at::autocast::is_autocast_enabled(device_type);
#else
  if (device_type == c10::DeviceType::CPU) return at::autocast::is_cpu_enabled();
  if (device_type == c10::DeviceType::CUDA) return at::autocast::is_enabled();
  return false;
#endif
}

AutocastState AutocastState::current() {
  AutocastState s;
#ifdef DEEPLADDER_DEVICE_TYPED_AUTOCAST
  s.cpu = at::autocast::is_autocast_enabled(at::kCPU);
  s.cuda = at::autocast::is_autocast_enabled(at::kCUDA);
  s.cpu_dtype = at::autocast::get_autocast_dtype(at::kCPU);
  s.cuda_dtype = at::autocast::get_autocast_dtype(at::kCUDA);
#else
  s.cpu = at::autocast::is_cpu_enabled();
  s.cuda = at::autocast::is_enabled();
  s.cpu_dtype = at::autocast::get_autocast_cpu_dtype();
  s.cuda_dtype = at::autocast::get_autocast_gpu_dtype();
#endif
  return s;
}

AutocastState AutocastState::forPrecision(Precision precision, const torch::Device& device) {
  AutocastState s = current();
  s.cpu = false;
  s.cuda = false;
  if (precision != Precision::bf16) return s;
  if (device.is_cuda()) {
    s.cuda = true;
    s.cuda_dtype = at::kBFloat16;
  } else {
    s.cpu = true;
    s.cpu_dtype = at::kBFloat16;
  }
  return s;
}

AutocastGuard::AutocastGuard(const AutocastState& state) : previous_(AutocastState::current()) {
  apply(state);
  if (state.enabled()) {
    at::autocast::increment_nesting();
    nested_ = true;
  }
}

AutocastGuard::~AutocastGuard() {
  if (nested_ && at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  apply(previous_);
}

}  // namespace deepladder::trainers
