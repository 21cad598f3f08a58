// TFRecord framing, the container of TensorBoard event files: each record is
//   uint64 length (little-endian) | uint32 masked CRC-32C of those 8 bytes |
//   `length` bytes of data | uint32 masked CRC-32C of the data
// (masking: crc32c.h). The reader walks the records of a file held in memory and refuses a
// truncated record or a CRC that does not match, naming the file and the byte offset of the
// record; the writer appends records to a byte string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace deepladder::tensorboard {

inline constexpr size_t kTfRecordHeaderBytes = 12;  // length + its CRC
inline constexpr size_t kTfRecordFooterBytes = 4;   // the data's CRC

class TfRecordReader {
 public:
  // `file` names the bytes in error messages.
  TfRecordReader(std::string_view bytes, std::string file)
      : bytes_(bytes), file_(std::move(file)) {}
  // The next record's data and the byte offset where its header starts; false at the end of the
  // bytes. Throws UserError "FILE: byte OFFSET: PROBLEM. HINT" for a truncated record, a length
  // whose CRC does not match, or data whose CRC does not match.
  bool next(std::string_view& data, size_t& offset);

 private:
  std::string_view bytes_;
  std::string file_;
  size_t pos_ = 0;
};

// Appends one framed record holding `data` to `out`.
void appendTfRecord(std::string& out, std::string_view data);

}  // namespace deepladder::tensorboard
