// A row-major matrix handed to a kernel entry point: data pointer, element type, shape and row
// stride (in elements). Plain C++ (no CUDA, no Torch) so that the CPU references, the CUDA
// launchers and the LibTorch glue share it. Entry points check it with requireMatrix().
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace deepladder::kernels {

enum class DType { kFloat32, kBFloat16 };

inline const char* dtypeName(DType dtype) {
  return dtype == DType::kFloat32 ? "float32" : "bfloat16";
}

struct Matrix {
  void* data = nullptr;  // device memory for the CUDA entry points, host memory otherwise
  DType dtype = DType::kFloat32;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t row_stride = 0;  // elements between row starts; == cols when contiguous
};

// Throws std::invalid_argument naming `op` and `what` unless m is a non-null, contiguous
// rows x cols matrix of `dtype`. These are programmer errors: the glue checks user input first.
inline void requireMatrix(const char* op, const char* what, const Matrix& m, DType dtype,
                          int64_t rows, int64_t cols) {
  const std::string where = std::string(op) + ": " + what;
  if (m.data == nullptr && rows * cols > 0) throw std::invalid_argument(where + " is null");
  if (m.dtype != dtype)
    throw std::invalid_argument(where + " is " + dtypeName(m.dtype) + ", expected " +
                                dtypeName(dtype));
  if (m.rows != rows || m.cols != cols)
    throw std::invalid_argument(where + " has shape " + std::to_string(m.rows) + "x" +
                                std::to_string(m.cols) + ", expected " + std::to_string(rows) +
                                "x" + std::to_string(cols));
  if (m.row_stride != cols)
    throw std::invalid_argument(where + " is not contiguous (row stride " +
                                std::to_string(m.row_stride) + ", " + std::to_string(cols) +
                                " columns)");
}

}  // namespace deepladder::kernels
