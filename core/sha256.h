// SHA-256 (FIPS 180-4) of a buffer or a file, as lowercase hex. Used to checksum checkpoints so a
// torn or corrupt file is detected before a resume trusts it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace deepladder {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  std::string hexDigest();  // finalizes; call once

 private:
  void block(const uint8_t* chunk);
  uint32_t state_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

std::string sha256Hex(const void* data, size_t size);
// Throws std::runtime_error naming the path when the file cannot be read.
std::string sha256File(const std::string& path);

}  // namespace deepladder
