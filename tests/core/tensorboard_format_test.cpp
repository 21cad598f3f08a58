// TensorBoard event files at the byte level: CRC-32C against the published check values (RFC 3720
// appendix B.4 and the "123456789" check value of CRC-32C), TFRecord framing with truncated and
// corrupted records refused at their byte offset, the protobuf wire format, and Event protos in
// the spellings trainers write (bytes built by hand here, not with deepladder's encoder).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/tensorboard/crc32c.h"
#include "core/tensorboard/protobuf_wire.h"
#include "core/tensorboard/tb_event.h"
#include "core/tensorboard/tfrecord.h"

namespace deepladder::tensorboard {
namespace {

// --- CRC-32C ----------------------------------------------------------------------------------

TEST(Crc32c, MatchesRfc3720CheckValues) {
  EXPECT_EQ(crc32c(std::string("123456789")), 0xE3069283u);
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(crc32c(std::string(32, '\xFF')), 0x62A8AB43u);
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(char(i));
    descending.push_back(char(31 - i));
  }
  EXPECT_EQ(crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32c(descending), 0x113FDB5Cu);
  EXPECT_EQ(crc32c(std::string()), 0u);
}

// Bit by bit, straight from the polynomial: the slicing-by-8 tables must agree at every length and
// alignment.
uint32_t bitwiseCrc32c(const std::string& bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char b : bytes) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ ((crc & 1u) ? 0x82F63B78u : 0u);
  }
  return ~crc;
}

TEST(Crc32c, SlicingByEightEqualsBitwiseAtEveryLengthAndAlignment) {
  std::string data;
  for (int i = 0; i < 300; ++i) data.push_back(char((i * 131 + 7) & 0xFF));
  for (size_t start = 0; start < 9; ++start)
    for (size_t length = 0; start + length <= data.size(); length += 7)
      ASSERT_EQ(crc32c(data.substr(start, length)), bitwiseCrc32c(data.substr(start, length)))
          << start << " " << length;
  // Continuing a checksum equals checksumming the whole.
  EXPECT_EQ(crc32c(data.data() + 100, 200, crc32c(data.data(), 100)), crc32c(data));
}

TEST(Crc32c, MaskIsTensorFlowsAndUnmasks) {
  const uint32_t crc = 0xE3069283u;
  EXPECT_EQ(maskCrc(crc), uint32_t(((crc >> 15) | (crc << 17)) + 0xa282ead8u));
  EXPECT_EQ(unmaskCrc(maskCrc(crc)), crc);
}

// --- TFRecord ---------------------------------------------------------------------------------

std::string threeRecords(std::vector<size_t>* offsets) {
  std::string file;
  for (const std::string data : {"first", "", "the third record"}) {
    if (offsets) offsets->push_back(file.size());
    appendTfRecord(file, data);
  }
  return file;
}

TEST(TfRecord, FramingIsLengthCrcDataCrc) {
  std::string file;
  appendTfRecord(file, "abc");
  ASSERT_EQ(file.size(), 8u + 4 + 3 + 4);
  uint64_t length;
  std::memcpy(&length, file.data(), 8);
  EXPECT_EQ(length, 3u);
  uint32_t length_crc, data_crc;
  std::memcpy(&length_crc, file.data() + 8, 4);
  std::memcpy(&data_crc, file.data() + 15, 4);
  EXPECT_EQ(length_crc, maskCrc(bitwiseCrc32c(file.substr(0, 8))));
  EXPECT_EQ(data_crc, maskCrc(bitwiseCrc32c("abc")));
}

TEST(TfRecord, ReadsBackWhatWasWritten) {
  std::vector<size_t> offsets;
  const std::string file = threeRecords(&offsets);
  TfRecordReader reader(file, "f");
  std::string_view data;
  size_t offset = 0;
  std::vector<std::string> read;
  std::vector<size_t> read_offsets;
  while (reader.next(data, offset)) {
    read.emplace_back(data);
    read_offsets.push_back(offset);
  }
  EXPECT_EQ(read, (std::vector<std::string>{"first", "", "the third record"}));
  EXPECT_EQ(read_offsets, offsets);
}

std::string errorOf(const std::string& file) {
  TfRecordReader reader(file, "events.out.tfevents.1.host");
  std::string_view data;
  size_t offset = 0;
  try {
    while (reader.next(data, offset)) {
    }
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(TfRecord, TruncatedFileIsRefusedAtTheOffsetOfItsLastRecord) {
  std::vector<size_t> offsets;
  const std::string file = threeRecords(&offsets);
  for (size_t cut = 1; cut < file.size(); ++cut) {
    if (cut == offsets[1] || cut == offsets[2]) continue;  // whole records: nothing missing
    const size_t record = cut < offsets[1]   ? offsets[0]
                          : cut < offsets[2] ? offsets[1]
                                             : offsets[2];
    const std::string error = errorOf(file.substr(0, cut));
    EXPECT_NE(error.find("events.out.tfevents.1.host: byte " + std::to_string(record) + ": "),
              std::string::npos)
        << "cut at " << cut << ": " << error;
    EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  }
}

TEST(TfRecord, CorruptedLengthOrDataIsRefusedAtItsRecord) {
  std::vector<size_t> offsets;
  const std::string file = threeRecords(&offsets);
  std::string bad_length = file;
  bad_length[offsets[2] + 1] ^= 0x01;
  EXPECT_NE(errorOf(bad_length).find("byte " + std::to_string(offsets[2]) + ": bad length CRC"),
            std::string::npos)
      << errorOf(bad_length);
  std::string bad_data = file;
  bad_data[offsets[2] + 12 + 4] ^= 0x20;
  EXPECT_NE(errorOf(bad_data).find("byte " + std::to_string(offsets[2]) + ": bad data CRC"),
            std::string::npos)
      << errorOf(bad_data);
  std::string bad_crc = file;
  bad_crc[offsets[1] - 1] ^= 0x80;  // the first record's data CRC itself
  EXPECT_NE(errorOf(bad_crc).find("byte 0: bad data CRC"), std::string::npos) << errorOf(bad_crc);
}

// --- protobuf wire format -----------------------------------------------------------------------

TEST(ProtobufWire, VarintsAreEncodedAsTheSpecSays) {
  std::string out;
  WireWriter::appendVarint(out, 300);
  EXPECT_EQ(out, std::string("\xAC\x02"));
  WireWriter w;
  w.varint(1, 150);  // the protobuf documentation's example message
  EXPECT_EQ(w.data(), std::string("\x08\x96\x01"));
  w.varint(2, uint64_t(-1));  // int64 -1: ten bytes
  WireReader r(w.data());
  WireField f;
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f.number, 1u);
  EXPECT_EQ(f.bits, 150u);
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f.asInt64(), -1);
  EXPECT_FALSE(r.next(f));
}

TEST(ProtobufWire, MalformedFieldsAreRefusedWithTheirOffset) {
  WireField f;
  {
    WireReader r(std::string_view("\x08\x96", 2));  // varint cut short
    EXPECT_THROW(r.next(f), WireFormatError);
  }
  try {
    const std::string message =
        std::string("\x08\x01", 2) + "\x12\x05" + "ab";  // 5 declared, 2 left
    WireReader r(message);
    ASSERT_TRUE(r.next(f));
    r.next(f);
    FAIL() << "no error";
  } catch (const WireFormatError& e) {
    EXPECT_EQ(e.offset(), 2u);
    EXPECT_NE(std::string(e.what()).find("declares 5 bytes"), std::string::npos) << e.what();
  }
  {
    WireReader r(std::string_view("\x0B\x00", 2));  // wire type 3: a group
    EXPECT_THROW(r.next(f), WireFormatError);
  }
}

// --- Event protos, bytes written out by hand ----------------------------------------------------

std::string key(int number, int wire) {
  return std::string(1, char((number << 3) | wire));
}
std::string lengthDelimited(int number, const std::string& payload) {
  return key(number, 2) + char(payload.size()) + payload;  // payloads < 128 bytes here
}
template <typename T>
std::string raw(T v) {
  std::string s(sizeof v, '\0');
  std::memcpy(s.data(), &v, sizeof v);
  return s;
}
std::string eventBytes(double wall, int step, const std::string& values) {
  return key(1, 1) + raw(wall) + key(2, 0) + char(step) + lengthDelimited(5, values);
}
std::string metadata(const std::string& plugin) {
  return lengthDelimited(9, lengthDelimited(1, lengthDelimited(1, plugin)));
}

TEST(TbEvent, ReadsSimpleValueAsPyTorchWritesIt) {
  const std::string value = lengthDelimited(1, "loss") + key(2, 5) + raw(2.5f);
  EventDecoder decoder;
  TbEvent event;
  decoder.decode(eventBytes(1.5, 7, lengthDelimited(1, value)), event);
  EXPECT_EQ(event.wall_time, 1.5);
  EXPECT_EQ(event.step, 7);
  ASSERT_EQ(event.scalars.size(), 1u);
  EXPECT_EQ(event.scalars[0].tag, "loss");
  EXPECT_EQ(event.scalars[0].value, 2.5);
}

TEST(TbEvent, ReadsScalarTensorsInEverySpelling) {
  const std::string rank0 = lengthDelimited(2, "");
  const std::string float_val = key(1, 0) + '\x01' + rank0 + lengthDelimited(5, raw(0.25f));
  const std::string double_val = key(1, 0) + '\x02' + rank0 + lengthDelimited(6, raw(0.125));
  const std::string unpacked = key(1, 0) + '\x01' + key(5, 5) + raw(4.0f);
  const std::string content = key(1, 0) + '\x02' + lengthDelimited(4, raw(1e-300));
  const std::string one_by_one = key(1, 0) + '\x01' +
                                 lengthDelimited(2, lengthDelimited(2, key(1, 0) + '\x01')) +
                                 lengthDelimited(5, raw(8.0f));
  const std::string values =
      lengthDelimited(
          1, lengthDelimited(1, "a") + metadata("scalars") + lengthDelimited(8, float_val)) +
      lengthDelimited(1, lengthDelimited(1, "b") + lengthDelimited(8, double_val)) +
      lengthDelimited(1, lengthDelimited(1, "c") + lengthDelimited(8, unpacked)) +
      lengthDelimited(1, lengthDelimited(1, "d") + lengthDelimited(8, content)) +
      lengthDelimited(1, lengthDelimited(1, "e") + lengthDelimited(8, one_by_one));
  EventDecoder decoder;
  TbEvent event;
  decoder.decode(eventBytes(0, 3, values), event);
  ASSERT_EQ(event.scalars.size(), 5u);
  EXPECT_EQ(event.scalars[0].value, 0.25);
  EXPECT_EQ(event.scalars[1].value, 0.125);
  EXPECT_EQ(event.scalars[2].value, 4.0);
  EXPECT_EQ(event.scalars[3].value, 1e-300);
  EXPECT_EQ(event.scalars[4].value, 8.0);
}

TEST(TbEvent, TensorsOfOtherPluginsAreNotScalarsEvenWithoutMetadataLater) {
  const std::string one_float = key(1, 0) + '\x01' + lengthDelimited(5, raw(1.0f));
  EventDecoder decoder;
  TbEvent event;
  // The histogram tag names its plugin on its first value only.
  decoder.decode(eventBytes(0, 0,
                            lengthDelimited(1, lengthDelimited(1, "h") + metadata("histograms") +
                                                   lengthDelimited(8, one_float))),
                 event);
  EXPECT_TRUE(event.scalars.empty());
  decoder.decode(
      eventBytes(0, 1, lengthDelimited(1, lengthDelimited(1, "h") + lengthDelimited(8, one_float))),
      event);
  EXPECT_TRUE(event.scalars.empty());
  // Two values, or a string tensor: not scalars.
  const std::string two = key(1, 0) + '\x01' + lengthDelimited(5, raw(1.0f) + raw(2.0f));
  const std::string text = key(1, 0) + '\x07' + lengthDelimited(8, "hi");
  decoder.decode(
      eventBytes(0, 2,
                 lengthDelimited(1, lengthDelimited(1, "x") + lengthDelimited(8, two)) +
                     lengthDelimited(1, lengthDelimited(1, "t") + lengthDelimited(8, text))),
      event);
  EXPECT_TRUE(event.scalars.empty());
}

TEST(TbEvent, EncoderOutputDecodesToTheSameScalarsAndHparams) {
  EventEncoder encoder;
  EventDecoder decoder;
  TbEvent event;
  decoder.decode(encoder.scalar(12.25, 1234567890123, "val/loss", 3.0000000000000004), event);
  ASSERT_EQ(event.scalars.size(), 1u);
  EXPECT_EQ(event.step, 1234567890123);
  EXPECT_EQ(event.wall_time, 12.25);
  EXPECT_EQ(event.scalars[0].value, 3.0000000000000004);           // a double, not rounded to float
  decoder.decode(encoder.scalar(13, 2, "val/loss", -1.5), event);  // second value: no metadata
  ASSERT_EQ(event.scalars.size(), 1u);
  EXPECT_EQ(event.scalars[0].value, -1.5);
  const nlohmann::json hparams = {{"arm", "vanilla"}, {"lr", 3e-4}, {"compile", true}};
  decoder.decode(encoder.sessionStartInfo(1, hparams), event);
  ASSERT_TRUE(event.hparams);
  EXPECT_EQ(*event.hparams, hparams);
  EXPECT_TRUE(event.scalars.empty());
}

}  // namespace
}  // namespace deepladder::tensorboard
