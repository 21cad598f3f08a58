// Safetensors reader and writer (see safetensors.h).
#include "trainers/safetensors.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/errors.h"
#include "core/safe_file.h"

namespace deepladder::trainers::safetensors {

namespace {

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors.cpp writes tensor bytes as they are in memory: a little-endian host only"
#endif

// The header's size limit: the safetensors library refuses headers over 100 MB.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct DtypeName {
  torch::ScalarType dtype;
  const char* name;
};
constexpr DtypeName kDtypes[] = {
    {torch::kFloat64, "F64"},   {torch::kFloat32, "F32"}, {torch::kFloat16, "F16"},
    {torch::kBFloat16, "BF16"}, {torch::kInt64, "I64"},   {torch::kInt32, "I32"},
    {torch::kInt16, "I16"},     {torch::kInt8, "I8"},     {torch::kUInt8, "U8"},
    {torch::kBool, "BOOL"},
};

std::optional<torch::ScalarType> dtypeOf(const std::string& name) {
  for (const auto& d : kDtypes)
    if (name == d.name) return d.dtype;
  return std::nullopt;
}

void putLittleEndian64(std::string& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t getLittleEndian64(const unsigned char* bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

}  // namespace

std::string dtypeName(torch::ScalarType dtype) {
  for (const auto& d : kDtypes)
    if (d.dtype == dtype) return d.name;
  throw std::invalid_argument(std::string("safetensors has no dtype for ") + c10::toString(dtype));
}

void write(AtomicOutputFile& out, const NamedTensors& tensors,
           const std::map<std::string, std::string>& metadata) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::vector<torch::Tensor> contiguous;
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    if (name.empty() || name == "__metadata__" || !names.insert(name).second)
      throw std::invalid_argument("safetensors::write: the tensor name \"" + name +
                                  "\" is empty, reserved or given twice");
    torch::Tensor cpu = tensor.detach().to(torch::kCPU).contiguous();
    const uint64_t bytes = static_cast<uint64_t>(cpu.numel()) * cpu.element_size();
    header[name] = {{"dtype", dtypeName(cpu.scalar_type())},
                    {"shape", cpu.sizes().vec()},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    contiguous.push_back(std::move(cpu));
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
  std::string prefix;
  putLittleEndian64(prefix, text.size());
  out.write(prefix);
  out.write(text);
  for (const auto& t : contiguous)
    out.write(static_cast<const char*>(t.data_ptr()),
              static_cast<size_t>(t.numel()) * static_cast<size_t>(t.element_size()));
}

void write(const std::string& path, const NamedTensors& tensors,
           const std::map<std::string, std::string>& metadata) {
  AtomicOutputFile out(path, "the safetensors file");
  write(out, tensors, metadata);
  out.commit();
}

File read(const std::string& path) {
  auto bad = [&](const std::string& what) -> UserError {
    return UserError(path + ": " + what +
                     ". Is it a safetensors file (deepladder export-weights writes one)?");
  };
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw UserError(path + ": cannot open the weights file. Check the path");
  const uint64_t size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  if (size < 8)
    throw bad("only " + std::to_string(size) + " bytes, shorter than the 8-byte header length");
  unsigned char prefix[8];
  in.read(reinterpret_cast<char*>(prefix), 8);
  const uint64_t header_bytes = getLittleEndian64(prefix);
  if (header_bytes > kMaxHeaderBytes || header_bytes > size - 8)
    throw bad("the header length " + std::to_string(header_bytes) + " exceeds the file (" +
              std::to_string(size) + " bytes)");
  std::string text(header_bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(header_bytes));
  if (!in) throw bad("cannot read the header");
  // The format: the header begins with '{' and may be padded with spaces (0x20) only; no key
  // may appear twice (a JSON parser would keep one of them silently).
  if (text.empty() || text.front() != '{') throw bad("the header does not begin with '{'");
  const size_t last = text.find_last_not_of(' ');
  if (last == std::string::npos || text[last] != '}')
    throw bad("the header's JSON is followed by something other than spaces (0x20)");
  std::vector<std::set<std::string>> keys;  // of each object being parsed, outermost first
  std::string entry_name, duplicate;        // the top-level key being read; the first repeat
  const auto callback = [&](int depth, nlohmann::json::parse_event_t event,
                            nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) keys.emplace_back();
    if (event == Event::object_end && !keys.empty()) keys.pop_back();
    if (event == Event::key && !keys.empty()) {
      const std::string key = parsed.get<std::string>();
      if (depth == 1) entry_name = key;
      if (!keys.back().insert(key).second && duplicate.empty())
        duplicate = depth == 1
                        ? (key == "__metadata__" ? "__metadata__ appears twice"
                                                 : "tensor \"" + key + "\" appears twice")
                        : "the entry of \"" + entry_name + "\" has the key \"" + key + "\" twice";
    }
    return true;
  };
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text, callback);
  } catch (const nlohmann::json::parse_error& e) {
    throw bad(std::string("the header is not valid JSON (") + e.what() + ")");
  }
  if (!duplicate.empty())
    throw bad("the header names a key twice: " + duplicate +
              " (the format forbids duplicate keys; which entry counts would be a guess)");
  if (!header.is_object()) throw bad("the header is not a JSON object");
  const uint64_t data_bytes = size - 8 - header_bytes;

  File file;
  struct Slice {
    uint64_t begin, end;
    std::string name;
    torch::ScalarType dtype;
    std::vector<int64_t> shape;
  };
  std::vector<Slice> slices;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) throw bad("__metadata__ is not an object of strings");
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) throw bad("__metadata__." + key + " is not a string");
        file.metadata[key] = value.get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor \"" + name + "\"";
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
        !entry.contains("data_offsets"))
      throw bad(where + " lacks dtype, shape or data_offsets");
    const auto& dtype_json = entry["dtype"];
    const auto dtype =
        dtype_json.is_string() ? dtypeOf(dtype_json.get<std::string>()) : std::nullopt;
    if (!dtype) throw bad(where + " has an unsupported dtype " + dtype_json.dump());
    Slice slice{0, 0, name, *dtype, {}};
    uint64_t elements = 1;
    if (!entry["shape"].is_array()) throw bad(where + ": shape is not a list");
    for (const auto& dim : entry["shape"]) {
      if (!dim.is_number_unsigned())
        throw bad(where + ": shape has a non-integer or negative size");
      const uint64_t d = dim.get<uint64_t>();
      if (d != 0 && elements > (uint64_t(1) << 62) / d) throw bad(where + ": shape is too large");
      elements *= d;
      slice.shape.push_back(static_cast<int64_t>(d));
    }
    const auto& offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned())
      throw bad(where + ": data_offsets is not [begin, end]");
    slice.begin = offsets[0].get<uint64_t>();
    slice.end = offsets[1].get<uint64_t>();
    const uint64_t expected = elements * c10::elementSize(*dtype);
    if (slice.end < slice.begin || slice.end > data_bytes)
      throw bad(where + ": data_offsets [" + std::to_string(slice.begin) + ", " +
                std::to_string(slice.end) + "] lie outside the " + std::to_string(data_bytes) +
                " data bytes (a truncated file?)");
    if (slice.end - slice.begin != expected)
      throw bad(where + ": data_offsets span " + std::to_string(slice.end - slice.begin) +
                " bytes, its shape and dtype need " + std::to_string(expected));
    slices.push_back(std::move(slice));
  }
  // The tensors tile the data exactly, as the format requires: no byte of it belongs to two
  // tensors, none to no tensor (a gap, or bytes after the last one).
  std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
    return std::tie(a.begin, a.end) < std::tie(b.begin, b.end);
  });
  uint64_t covered = 0;  // the data bytes [0, covered) belong to the tensors seen so far
  const Slice* previous = nullptr;
  for (const Slice& slice : slices) {
    if (slice.begin < covered)
      throw bad("tensors \"" + previous->name + "\" and \"" + slice.name +
                "\" overlap in the data");
    if (slice.begin > covered)
      throw bad("the data bytes [" + std::to_string(covered) + ", " + std::to_string(slice.begin) +
                ") belong to no tensor (a gap before tensor \"" + slice.name +
                "\"; the format requires the tensors to fill the data exactly)");
    covered = slice.end;
    previous = &slice;
  }
  if (covered != data_bytes)
    throw bad(
        std::to_string(data_bytes - covered) + " data bytes follow the end of " +
        (previous ? "the last tensor, \"" + previous->name + "\"," : std::string("the header")) +
        " and belong to no tensor (the format requires the tensors to fill the data "
        "exactly)");
  const uint64_t data_start = 8 + header_bytes;
  for (const Slice& slice : slices) {
    torch::Tensor tensor = torch::empty(slice.shape, torch::TensorOptions().dtype(slice.dtype));
    in.seekg(static_cast<std::streamoff>(data_start + slice.begin));
    in.read(static_cast<char*>(tensor.data_ptr()),
            static_cast<std::streamsize>(slice.end - slice.begin));
    if (!in) throw bad("cannot read the data of tensor \"" + slice.name + "\"");
    file.tensors.emplace_back(slice.name, std::move(tensor));
  }
  return file;
}

}  // namespace deepladder::trainers::safetensors
