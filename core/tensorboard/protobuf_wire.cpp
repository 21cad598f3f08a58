// The protocol-buffer wire format reader and writer (see protobuf_wire.h).
#include "core/tensorboard/protobuf_wire.h"

#include <cstring>

namespace deepladder::tensorboard {

double WireField::asDouble() const {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

float WireField::asFloat() const {
  const auto b = static_cast<uint32_t>(bits);
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

uint64_t WireReader::readVarint() {
  const size_t start = pos_;
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= data_.size())
      throw WireFormatError(base_ + start, "varint runs past the end of the message");
    const auto byte = static_cast<uint8_t>(data_[pos_++]);
    value |= uint64_t(byte & 0x7F) << shift;
    if (!(byte & 0x80)) return value;
  }
  throw WireFormatError(base_ + start, "varint longer than 10 bytes");
}

bool WireReader::next(WireField& field) {
  if (pos_ >= data_.size()) return false;
  field.offset = base_ + pos_;
  const uint64_t key = readVarint();
  field.number = static_cast<uint32_t>(key >> 3);
  if (field.number == 0 || (key >> 3) > 0x1FFFFFFF)
    throw WireFormatError(field.offset, "field number " + std::to_string(key >> 3) +
                                            " is not a valid protobuf field number");
  const auto type = static_cast<uint8_t>(key & 7);
  auto need = [&](size_t n) {
    if (data_.size() - pos_ < n)
      throw WireFormatError(field.offset, "field " + std::to_string(field.number) + " needs " +
                                              std::to_string(n) + " bytes, the message has " +
                                              std::to_string(data_.size() - pos_) + " left");
  };
  switch (type) {
    case 0:
      field.type = WireType::kVarint;
      field.bits = readVarint();
      break;
    case 1:
      field.type = WireType::kFixed64;
      need(8);
      std::memcpy(&field.bits, data_.data() + pos_, 8);
      pos_ += 8;
      break;
    case 2: {
      field.type = WireType::kLengthDelimited;
      const uint64_t size = readVarint();
      if (size > data_.size() - pos_)
        throw WireFormatError(field.offset, "field " + std::to_string(field.number) + " declares " +
                                                std::to_string(size) + " bytes, the message has " +
                                                std::to_string(data_.size() - pos_) + " left");
      field.bytes = data_.substr(pos_, size);
      pos_ += size;
      break;
    }
    case 5: {
      field.type = WireType::kFixed32;
      need(4);
      uint32_t v;
      std::memcpy(&v, data_.data() + pos_, 4);
      field.bits = v;
      pos_ += 4;
      break;
    }
    default:
      throw WireFormatError(field.offset, "field " + std::to_string(field.number) +
                                              " has wire type " + std::to_string(type) +
                                              ", which event files do not use (groups or invalid)");
  }
  return true;
}

WireReader WireReader::nested(const WireField& field) const {
  const size_t payload = static_cast<size_t>(field.bytes.data() - data_.data());
  return WireReader(field.bytes, base_ + payload);
}

void WireWriter::appendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void WireWriter::key(uint32_t number, WireType type) {
  appendVarint(out_, (uint64_t(number) << 3) | uint64_t(type));
}

void WireWriter::varint(uint32_t number, uint64_t value) {
  key(number, WireType::kVarint);
  appendVarint(out_, value);
}

void WireWriter::fixed64(uint32_t number, double value) {
  key(number, WireType::kFixed64);
  char b[8];
  std::memcpy(b, &value, 8);
  out_.append(b, 8);
}

void WireWriter::fixed32(uint32_t number, float value) {
  key(number, WireType::kFixed32);
  char b[4];
  std::memcpy(b, &value, 4);
  out_.append(b, 4);
}

void WireWriter::bytes(uint32_t number, std::string_view payload) {
  key(number, WireType::kLengthDelimited);
  appendVarint(out_, payload.size());
  out_.append(payload.data(), payload.size());
}

}  // namespace deepladder::tensorboard
