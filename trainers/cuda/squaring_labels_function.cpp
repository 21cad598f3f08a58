// Squaring-label glue (see squaring_labels_function.h).
#include "trainers/cuda/squaring_labels_function.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include <cstdint>

#include "kernels/squaring_labels.cuh"
#include "kernels/squaring_labels_reference.h"

namespace deepladder::trainers::fused {

torch::Tensor squaringLabels(const torch::Tensor& x_in, const torch::Tensor& moduli_in,
                             const torch::Tensor& squarings_in) {
  constexpr const char* kOp = "squaringLabels";
  for (const auto* t : {&x_in, &moduli_in, &squarings_in}) {
    TORCH_CHECK(t->scalar_type() == torch::kInt64 && t->dim() == 1, kOp,
                ": x, moduli and squarings must be 1-D int64 tensors (uint64 bit patterns)");
    TORCH_CHECK(t->device() == x_in.device() && t->size(0) == x_in.size(0), kOp,
                ": x, moduli and squarings must share length and device");
  }
  TORCH_CHECK(!moduli_in.eq(0).any().item<bool>(), kOp, ": a modulus is 0");
  const torch::Tensor x = x_in.contiguous(), moduli = moduli_in.contiguous(),
                      squarings = squarings_in.contiguous();
  torch::Tensor labels = torch::empty_like(x);
  const auto as_u64 = [](const torch::Tensor& t) {
    return reinterpret_cast<const uint64_t*>(t.data_ptr<int64_t>());
  };
  auto* out = reinterpret_cast<uint64_t*>(labels.data_ptr<int64_t>());
  if (x.is_cuda()) {
    const c10::cuda::CUDAGuard guard(x.device());
    kernels::squaringLabels(as_u64(x), as_u64(moduli), as_u64(squarings), out, x.size(0),
                            at::cuda::getCurrentCUDAStream().stream());
  } else {
    kernels::squaringLabelsReference(as_u64(x), as_u64(moduli), as_u64(squarings), out, x.size(0));
  }
  return labels;
}

}  // namespace deepladder::trainers::fused
