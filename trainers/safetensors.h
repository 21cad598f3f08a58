// Safetensors files (the format of Hugging Face's safetensors library), read and written here
// without the library: an 8-byte little-endian header length N, N bytes of JSON header, then the
// raw little-endian tensor data. The header maps each tensor name to
//   {"dtype": "F32", "shape": [rows, cols], "data_offsets": [begin, end]}
// with offsets relative to the start of the data, and may hold "__metadata__", a map of strings.
// The writer pads the header with spaces to a multiple of 8 bytes, lays the tensors out in the
// order given, back to back, and writes through a temporary file renamed into place. The reader
// follows the format's specification to the letter before it builds a tensor: size, header
// length, a header that begins with '{' and is padded with spaces only, valid JSON with no key
// twice (a tensor named twice, or a key twice in one entry), dtype, shape, offsets inside the
// data and matching the shape, and offsets that tile the data exactly (no overlap, no gap, no
// byte after the last tensor); every error names the file and the tensor. Values are not
// checked here (the format allows NaN and Inf): train.init_from refuses them
// (model_weights.h).
//
// dtypes: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL. Tensors come back on the CPU, contiguous.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace deepladder {
class AtomicOutputFile;
}

namespace deepladder::trainers::safetensors {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

struct File {
  NamedTensors tensors;  // in the order of their data offsets
  std::map<std::string, std::string> metadata;
};

// "F32" for torch::kFloat32 and so on; throws std::invalid_argument for a dtype the format lacks.
std::string dtypeName(torch::ScalarType dtype);

// Writes `tensors` (any device, any layout: each is copied to a contiguous CPU tensor) and
// `metadata` to `path` (an output checked and written atomically, core/safe_file.h). Throws
// UserError naming the path on a refused path or an I/O failure and std::invalid_argument for a
// duplicate or empty name.
void write(const std::string& path, const NamedTensors& tensors,
           const std::map<std::string, std::string>& metadata = {});
// The same into `out`, which the caller commits.
void write(AtomicOutputFile& out, const NamedTensors& tensors,
           const std::map<std::string, std::string>& metadata = {});

// Reads `path`. Throws deepladder::UserError ("PATH: what is wrong. hint") for a file that is
// not a valid safetensors file.
File read(const std::string& path);

}  // namespace deepladder::trainers::safetensors
