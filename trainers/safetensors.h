// Safetensors files (the format of Hugging Face's safetensors library), read and written here
// without the library: an 8-byte little-endian header length N, N bytes of JSON header, then the
// raw little-endian tensor data. The header maps each tensor name to
//   {"dtype": "F32", "shape": [rows, cols], "data_offsets": [begin, end]}
// with offsets relative to the start of the data, and may hold "__metadata__", a map of strings.
// The writer pads the header with spaces to a multiple of 8 bytes, lays the tensors out in the
// order given, back to back, and writes through a temporary file renamed into place. The reader
// checks everything it is told (size, header length, JSON, dtype, shape, offsets inside the data
// and matching the shape, no overlaps) before it builds a tensor, and names the file and the
// tensor in every error.
//
// dtypes: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL. Tensors come back on the CPU, contiguous.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace deepladder::trainers::safetensors {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

struct File {
  NamedTensors tensors;  // in the order of their data offsets
  std::map<std::string, std::string> metadata;
};

// "F32" for torch::kFloat32 and so on; throws std::invalid_argument for a dtype the format lacks.
std::string dtypeName(torch::ScalarType dtype);

// Writes `tensors` (any device, any layout: each is copied to a contiguous CPU tensor) and
// `metadata` to `path`. Throws std::runtime_error naming the path on an I/O failure and
// std::invalid_argument for a duplicate or empty name.
void write(const std::string& path, const NamedTensors& tensors,
           const std::map<std::string, std::string>& metadata = {});

// Reads `path`. Throws deepladder::UserError ("PATH: what is wrong. hint") for a file that is
// not a valid safetensors file.
File read(const std::string& path);

}  // namespace deepladder::trainers::safetensors
