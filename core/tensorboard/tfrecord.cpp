// TFRecord framing: reader and writer (see tfrecord.h).
#include "core/tensorboard/tfrecord.h"

#include <cstring>

#include "core/errors.h"
#include "core/tensorboard/crc32c.h"

namespace deepladder::tensorboard {
namespace {

uint64_t readLe64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);  // little-endian hosts only, like the rest of deepladder's file readers
  return v;
}

uint32_t readLe32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

constexpr const char* kHint =
    "The event file is damaged or was still being written when it was copied: copy it again from "
    "where it was written, or move it out of the log directory to import the rest";

}  // namespace

bool TfRecordReader::next(std::string_view& data, size_t& offset) {
  if (pos_ >= bytes_.size()) return false;
  offset = pos_;
  const size_t left = bytes_.size() - pos_;
  auto refuse = [&](const std::string& problem) -> void {
    throw UserError(file_ + ": byte " + std::to_string(offset) + ": " + problem + ". " + kHint);
  };
  if (left < kTfRecordHeaderBytes)
    refuse("truncated record: " + std::to_string(left) + " bytes left, a record header needs " +
           std::to_string(kTfRecordHeaderBytes));
  const char* p = bytes_.data() + pos_;
  const uint64_t length = readLe64(p);
  const uint32_t length_crc = readLe32(p + 8);
  if (maskCrc(crc32c(p, 8)) != length_crc)
    refuse("bad length CRC (the record's length field is corrupted: it reads " +
           std::to_string(length) + ")");
  const size_t room = left - kTfRecordHeaderBytes;
  if (length > room || room - length < kTfRecordFooterBytes)
    refuse("truncated record: its header declares " + std::to_string(length) +
           " bytes of data, which with their 4-byte CRC need " +
           std::to_string(length + kTfRecordFooterBytes) + ", and the file ends " +
           std::to_string(room) + " bytes after the header");
  const char* body = p + kTfRecordHeaderBytes;
  const uint32_t data_crc = readLe32(body + length);
  if (maskCrc(crc32c(body, length)) != data_crc)
    refuse("bad data CRC (the record's " + std::to_string(length) +
           " bytes of data are corrupted)");
  data = std::string_view(body, length);
  pos_ += kTfRecordHeaderBytes + length + kTfRecordFooterBytes;
  return true;
}

void appendTfRecord(std::string& out, std::string_view data) {
  char header[kTfRecordHeaderBytes];
  const uint64_t length = data.size();
  std::memcpy(header, &length, 8);
  const uint32_t length_crc = maskCrc(crc32c(header, 8));
  std::memcpy(header + 8, &length_crc, 4);
  out.append(header, sizeof header);
  out.append(data.data(), data.size());
  const uint32_t data_crc = maskCrc(crc32c(data));
  char footer[4];
  std::memcpy(footer, &data_crc, 4);
  out.append(footer, 4);
}

}  // namespace deepladder::tensorboard
