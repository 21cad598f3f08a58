// Views of LibTorch tensors as kernels::Matrix for the CUDA ops: (..., C) tensors are seen as
// contiguous (rows, C) matrices. Used only by the glue in trainers/cuda/.
#pragma once

#include <torch/torch.h>

#include <string>

#include "kernels/matrix.h"

namespace deepladder::trainers::fused {

inline kernels::DType kernelDType(const torch::Tensor& t, const char* op) {
  if (t.scalar_type() == torch::kFloat32) return kernels::DType::kFloat32;
  if (t.scalar_type() == torch::kBFloat16) return kernels::DType::kBFloat16;
  TORCH_CHECK(false, op, ": CUDA kernels take float32 or bfloat16, got ", t.scalar_type());
}

// t must be contiguous; its last dimension becomes the columns.
inline kernels::Matrix asMatrix(const torch::Tensor& t, const char* op) {
  TORCH_CHECK(t.is_contiguous(), op, ": tensor must be contiguous");
  TORCH_CHECK(t.dim() >= 1, op, ": tensor must have at least one dimension");
  kernels::Matrix m;
  m.data = t.data_ptr();
  m.dtype = kernelDType(t, op);
  m.cols = t.size(-1);
  m.rows = m.cols == 0 ? 0 : t.numel() / m.cols;
  m.row_stride = m.cols;
  return m;
}

}  // namespace deepladder::trainers::fused
