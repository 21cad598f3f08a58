// The protocol-buffer wire format, as much of it as TensorBoard's event files need, written out
// by hand so deepladder links no protobuf library: a reader that walks a message's fields
// (varint, fixed64, length-delimited, fixed32; groups are refused) and a writer that appends them.
// It knows no schema: the caller says what a field number means (tb_event.cpp).
// Every read is bounds-checked; a malformed message throws WireFormatError with the byte offset
// (within the message) where it went wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace deepladder::tensorboard {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

class WireFormatError : public std::runtime_error {
 public:
  WireFormatError(size_t offset, const std::string& what)
      : std::runtime_error(what), offset_(offset) {}
  size_t offset() const { return offset_; }  // bytes from the start of the outermost message

 private:
  size_t offset_;
};

// One field as read: its number, wire type, and payload (a varint or fixed value in `bits`,
// the bytes of a length-delimited one in `bytes`).
struct WireField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t bits = 0;       // varint value, or the raw bits of fixed32 / fixed64
  std::string_view bytes;  // length-delimited payload
  size_t offset = 0;       // where the field's key starts (from the outermost message)

  double asDouble() const;  // fixed64 as IEEE double
  float asFloat() const;    // fixed32 as IEEE float
  int64_t asInt64() const { return static_cast<int64_t>(bits); }
};

class WireReader {
 public:
  // `base_offset`: where `message` starts within the outermost message, so errors and
  // WireField::offset count from there (pass field.offset + header size for nested messages: use
  // nested()).
  explicit WireReader(std::string_view message, size_t base_offset = 0)
      : data_(message), base_(base_offset) {}
  // The next field, or false at the end. Throws WireFormatError on a truncated or malformed field.
  bool next(WireField& field);
  // A reader over a length-delimited field's payload, offsets kept relative to the outermost
  // message.
  WireReader nested(const WireField& field) const;

 private:
  uint64_t readVarint();
  std::string_view data_;
  size_t pos_ = 0;
  size_t base_;
};

// Packed repeated fixed-width values (float_val, double_val): calls f(value) for each; throws
// WireFormatError when the payload is not a whole number of values.
template <typename T, typename F>
void forEachPacked(const WireField& field, F&& f);

// Appends fields to a byte string.
class WireWriter {
 public:
  void varint(uint32_t number, uint64_t value);
  void fixed64(uint32_t number, double value);
  void fixed32(uint32_t number, float value);
  void bytes(uint32_t number, std::string_view payload);  // strings and nested messages
  const std::string& data() const { return out_; }
  std::string take() { return std::move(out_); }

  static void appendVarint(std::string& out, uint64_t value);

 private:
  void key(uint32_t number, WireType type);
  std::string out_;
};

}  // namespace deepladder::tensorboard

#include <cstring>

namespace deepladder::tensorboard {
template <typename T, typename F>
void forEachPacked(const WireField& field, F&& f) {
  if (field.bytes.size() % sizeof(T) != 0)
    throw WireFormatError(field.offset, "packed field " + std::to_string(field.number) + " holds " +
                                            std::to_string(field.bytes.size()) +
                                            " bytes, not a whole number of " +
                                            std::to_string(sizeof(T)) + "-byte values");
  for (size_t i = 0; i < field.bytes.size(); i += sizeof(T)) {
    T value;
    std::memcpy(&value, field.bytes.data() + i, sizeof(T));  // little-endian hosts only
    f(value);
  }
}
}  // namespace deepladder::tensorboard
