// Mixed precision of a training run (train.precision). "bf16" is autocast, as the growth paper's
// code runs it: matmuls and attention take bfloat16 copies of their inputs and weights (LibTorch's
// autocast lists: linear, mm, bmm, baddbmm, scaled_dot_product_attention), while the parameters
// (master weights), their gradients, the optimizer state, the norms, the boundary operator and the
// residual stream stay float32 (a block adds its bfloat16 branch output to the float32 stream, so
// type promotion keeps the sum in float32), and the logits are cast back to float32 before the
// loss. bfloat16 has float32's exponent range, so no loss scaling is needed (unlike float16).
//
// On CUDA this is LibTorch's CUDA autocast with dtype bfloat16; on the CPU its CPU autocast, which
// is only allowed where the CPU has native bfloat16 (AVX512-BF16 or AMX-BF16): elsewhere
// bfloat16 matmuls are emulated and slower than float32, so the run is refused instead.
//
// LibTorch's autocast state is thread-local and changed here only through AutocastGuard, which
// restores the previous state (and clears the cast cache when the outermost guard ends). Its API
// changed in LibTorch 2.4 (device-typed calls); both spellings are handled in precision.cpp.
#pragma once

#include <torch/torch.h>

#include "core/options/option_enums.h"

namespace deepladder::trainers {

// Whether this CPU runs bfloat16 dot products natively (AVX512-BF16; AMX CPUs have it too).
bool cpuSupportsBf16();

// Throws UserError naming train.precision when `precision` cannot run on `device`.
void requirePrecisionSupported(Precision precision, const torch::Device& device);

// Whether autocast is on for tensors of `device_type` in the calling thread.
bool autocastEnabled(c10::DeviceType device_type);

// The autocast switches of the calling thread (CPU and CUDA), for saving and restoring.
struct AutocastState {
  bool cpu = false;
  bool cuda = false;
  at::ScalarType cpu_dtype = at::kBFloat16;
  at::ScalarType cuda_dtype = at::kHalf;

  static AutocastState current();
  // bfloat16 autocast on `device`'s type for bf16; every switch off for fp32.
  static AutocastState forPrecision(Precision precision, const torch::Device& device);
  bool enabled() const { return cpu || cuda; }
};

// Sets `state` for its lifetime, then restores what was there; the outermost guard that enabled
// autocast clears LibTorch's cache of cast weights on exit (so a cast never outlives an update).
class AutocastGuard {
 public:
  explicit AutocastGuard(const AutocastState& state);
  AutocastGuard(Precision precision, const torch::Device& device)
      : AutocastGuard(AutocastState::forPrecision(precision, device)) {}
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  AutocastState previous_;
  bool nested_ = false;
};

}  // namespace deepladder::trainers
