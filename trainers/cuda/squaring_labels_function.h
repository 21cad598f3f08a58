// Squaring-task labels z = x^(2^T) mod N for a batch, on the GPU when the tensors live there
// (kernels/squaring_labels.cuh), with the CPU reference otherwise. LibTorch has no uint64, so
// the values travel as int64 tensors holding the uint64 bit patterns.
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers::fused {

// x, moduli, squarings: (count) int64 (uint64 bits), one device. Every modulus must be nonzero
// (throws c10::Error otherwise). Returns (count) int64 labels on the same device.
torch::Tensor squaringLabels(const torch::Tensor& x, const torch::Tensor& moduli,
                             const torch::Tensor& squarings);

}  // namespace deepladder::trainers::fused
