// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum TFRecord files carry, and
// TensorFlow's "masked" form of it: ((crc >> 15) | (crc << 17)) + 0xa282ead8, which TFRecord
// stores so that a CRC of data that itself holds CRCs is not trivially zero. Table-driven,
// eight bytes at a time (slicing-by-8); no hardware instructions, so it runs anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace deepladder::tensorboard {

// CRC-32C of `size` bytes, continuing from `crc` (0 for a fresh checksum).
uint32_t crc32c(const void* data, size_t size, uint32_t crc = 0);
inline uint32_t crc32c(std::string_view bytes) {
  return crc32c(bytes.data(), bytes.size());
}

inline uint32_t maskCrc(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
inline uint32_t unmaskCrc(uint32_t masked) {
  const uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace deepladder::tensorboard
