// TensorBoard Event protos: decoder and encoder (see tb_event.h for what is read and written).
#include "core/tensorboard/tb_event.h"

#include <cstring>

#include "core/tensorboard/protobuf_wire.h"

namespace deepladder::tensorboard {
namespace {

// --- field numbers (event.proto, summary.proto, tensor.proto, tensor_shape.proto, types.proto,
// tensorboard/plugins/hparams/plugin_data.proto, google/protobuf/struct.proto) -------------------
namespace event_field {
constexpr uint32_t kWallTime = 1, kStep = 2, kFileVersion = 3, kSummary = 5;
}
constexpr uint32_t kSummaryValue = 1;
namespace value_field {
constexpr uint32_t kTag = 1, kSimpleValue = 2, kTensor = 8, kMetadata = 9;
}
namespace metadata_field {
constexpr uint32_t kPluginData = 1, kDataClass = 4;
}
namespace plugin_data_field {
constexpr uint32_t kPluginName = 1, kContent = 2;
}
namespace tensor_field {
constexpr uint32_t kDtype = 1, kShape = 2, kContent = 4, kFloatVal = 5, kDoubleVal = 6;
}
constexpr uint32_t kShapeDim = 2, kDimSize = 1;
constexpr uint64_t kDtFloat = 1, kDtDouble = 2;
constexpr uint64_t kDataClassScalar = 1;
namespace hparams_field {
constexpr uint32_t kVersion = 1, kSessionStartInfo = 3;  // HParamsPluginData
constexpr uint32_t kHparams = 1, kStartTimeSecs = 5;     // SessionStartInfo
constexpr uint32_t kMapKey = 1, kMapValue = 2;           // map entry
}  // namespace hparams_field
namespace proto_value_field {  // google.protobuf.Value
constexpr uint32_t kNumber = 2, kString = 3, kBool = 4;
}

// The single value of a scalar tensor, or nullopt when the tensor is not a one-element float or
// double tensor.
std::optional<double> scalarOfTensor(WireReader reader) {
  uint64_t dtype = 0;
  std::vector<double> values;
  std::string_view content;
  bool one_element = true;  // every dim of the shape is 1 (or it has none: rank 0)
  WireField f;
  while (reader.next(f)) {
    switch (f.number) {
      case tensor_field::kDtype:
        dtype = f.bits;
        break;
      case tensor_field::kShape: {
        WireReader shape = reader.nested(f);
        WireField d;
        while (shape.next(d)) {
          if (d.number != kShapeDim || d.type != WireType::kLengthDelimited) continue;
          WireReader dim = shape.nested(d);
          WireField s;
          int64_t size = 0;
          while (dim.next(s))
            if (s.number == kDimSize && s.type == WireType::kVarint) size = s.asInt64();
          if (size != 1) one_element = false;
        }
        break;
      }
      case tensor_field::kContent:
        if (f.type == WireType::kLengthDelimited) content = f.bytes;
        break;
      case tensor_field::kFloatVal:
        if (f.type == WireType::kLengthDelimited)
          forEachPacked<float>(f, [&](float v) { values.push_back(v); });
        else if (f.type == WireType::kFixed32)
          values.push_back(f.asFloat());
        break;
      case tensor_field::kDoubleVal:
        if (f.type == WireType::kLengthDelimited)
          forEachPacked<double>(f, [&](double v) { values.push_back(v); });
        else if (f.type == WireType::kFixed64)
          values.push_back(f.asDouble());
        break;
      default:
        break;
    }
  }
  if (!one_element) return std::nullopt;
  if (dtype == kDtFloat && values.empty() && content.size() == sizeof(float)) {
    float v;
    std::memcpy(&v, content.data(), sizeof v);
    return v;
  }
  if (dtype == kDtDouble && values.empty() && content.size() == sizeof(double)) {
    double v;
    std::memcpy(&v, content.data(), sizeof v);
    return v;
  }
  if ((dtype == kDtFloat || dtype == kDtDouble) && values.size() == 1) return values[0];
  return std::nullopt;
}

// SessionStartInfo.hparams as a flat JSON object.
nlohmann::json hparamsOfPluginContent(WireReader reader) {
  nlohmann::json out = nlohmann::json::object();
  WireField f;
  while (reader.next(f)) {
    if (f.number != hparams_field::kSessionStartInfo || f.type != WireType::kLengthDelimited)
      continue;
    WireReader info = reader.nested(f);
    WireField entry;
    while (info.next(entry)) {
      if (entry.number != hparams_field::kHparams || entry.type != WireType::kLengthDelimited)
        continue;
      WireReader map_entry = info.nested(entry);
      std::string key;
      nlohmann::json value;
      WireField e;
      while (map_entry.next(e)) {
        if (e.number == hparams_field::kMapKey && e.type == WireType::kLengthDelimited)
          key = std::string(e.bytes);
        if (e.number != hparams_field::kMapValue || e.type != WireType::kLengthDelimited) continue;
        WireReader v = map_entry.nested(e);
        WireField k;
        while (v.next(k)) {
          if (k.number == proto_value_field::kNumber && k.type == WireType::kFixed64)
            value = k.asDouble();
          else if (k.number == proto_value_field::kString && k.type == WireType::kLengthDelimited)
            value = std::string(k.bytes);
          else if (k.number == proto_value_field::kBool && k.type == WireType::kVarint)
            value = k.bits != 0;
        }
      }
      if (!key.empty() && !value.is_null()) out[key] = value;
    }
  }
  return out;
}

}  // namespace

void EventDecoder::decode(std::string_view data, TbEvent& event) {
  event.wall_time = 0;
  event.step = 0;
  event.scalars.clear();
  event.hparams.reset();
  WireReader reader(data);
  WireField f;
  while (reader.next(f)) {
    if (f.number == event_field::kWallTime && f.type == WireType::kFixed64)
      event.wall_time = f.asDouble();
    else if (f.number == event_field::kStep && f.type == WireType::kVarint)
      event.step = f.asInt64();
    else if (f.number == event_field::kSummary && f.type == WireType::kLengthDelimited) {
      WireReader summary = reader.nested(f);
      WireField v;
      while (summary.next(v))
        if (v.number == kSummaryValue && v.type == WireType::kLengthDelimited)
          decodeValue(v.bytes, v.bytes.data() - data.data(), event);
    }
  }
}

void EventDecoder::decodeValue(std::string_view bytes, size_t offset, TbEvent& event) {
  WireReader reader(bytes, offset);
  std::string_view tag, plugin, content;
  bool has_metadata = false;
  std::optional<double> simple;
  std::optional<WireField> tensor;
  WireField f;
  while (reader.next(f)) {
    if (f.number == value_field::kTag && f.type == WireType::kLengthDelimited)
      tag = f.bytes;
    else if (f.number == value_field::kSimpleValue && f.type == WireType::kFixed32)
      simple = f.asFloat();
    else if (f.number == value_field::kTensor && f.type == WireType::kLengthDelimited)
      tensor = f;
    else if (f.number == value_field::kMetadata && f.type == WireType::kLengthDelimited) {
      has_metadata = true;
      WireReader metadata = reader.nested(f);
      WireField m;
      while (metadata.next(m)) {
        if (m.number != metadata_field::kPluginData || m.type != WireType::kLengthDelimited)
          continue;
        WireReader plugin_data = metadata.nested(m);
        WireField p;
        while (plugin_data.next(p)) {
          if (p.type != WireType::kLengthDelimited) continue;
          if (p.number == plugin_data_field::kPluginName) plugin = p.bytes;
          if (p.number == plugin_data_field::kContent) content = p.bytes;
        }
      }
    }
  }
  std::string tag_text(tag);
  if (has_metadata) tag_plugin_.emplace(tag_text, std::string(plugin));
  if (plugin == "hparams" && !content.empty()) {
    const size_t content_offset = offset + static_cast<size_t>(content.data() - bytes.data());
    nlohmann::json hparams = hparamsOfPluginContent(WireReader(content, content_offset));
    if (!hparams.empty()) event.hparams = std::move(hparams);
    return;
  }
  if (simple) {
    event.scalars.push_back({std::move(tag_text), *simple});
    return;
  }
  if (!tensor) return;
  const auto known = tag_plugin_.find(tag_text);
  const std::string_view tag_plugin = known == tag_plugin_.end() ? "" : known->second;
  if (tag_plugin != "" && tag_plugin != "scalars") return;
  if (const auto value = scalarOfTensor(reader.nested(*tensor)))
    event.scalars.push_back({std::move(tag_text), *value});
}

// --- encoding ---------------------------------------------------------------------------------

std::string encodeFileVersionEvent(double wall_time) {
  WireWriter event;
  event.fixed64(event_field::kWallTime, wall_time);
  event.bytes(event_field::kFileVersion, "brain.Event:2");
  return event.take();
}

std::string EventEncoder::scalar(double wall_time, int64_t step, const std::string& tag,
                                 double value) {
  WireWriter tensor;
  tensor.varint(tensor_field::kDtype, kDtDouble);
  tensor.bytes(tensor_field::kShape, "");  // rank 0
  std::string packed(sizeof value, '\0');
  std::memcpy(packed.data(), &value, sizeof value);
  tensor.bytes(tensor_field::kDoubleVal, packed);

  WireWriter v;
  v.bytes(value_field::kTag, tag);
  if (tags_described_.insert(tag).second) {
    WireWriter plugin_data, metadata;
    plugin_data.bytes(plugin_data_field::kPluginName, "scalars");
    metadata.bytes(metadata_field::kPluginData, plugin_data.data());
    metadata.varint(metadata_field::kDataClass, kDataClassScalar);
    v.bytes(value_field::kMetadata, metadata.data());
  }
  v.bytes(value_field::kTensor, tensor.data());

  WireWriter summary;
  summary.bytes(kSummaryValue, v.data());
  WireWriter event;
  event.fixed64(event_field::kWallTime, wall_time);
  event.varint(event_field::kStep, static_cast<uint64_t>(step));
  event.bytes(event_field::kSummary, summary.data());
  return event.take();
}

std::string EventEncoder::sessionStartInfo(double wall_time, const nlohmann::json& hparams) {
  WireWriter info;
  for (const auto& [key, value] : hparams.items()) {
    WireWriter proto_value;
    if (value.is_boolean())
      proto_value.varint(proto_value_field::kBool, value.get<bool>() ? 1 : 0);
    else if (value.is_number())
      proto_value.fixed64(proto_value_field::kNumber, value.get<double>());
    else if (value.is_string())
      proto_value.bytes(proto_value_field::kString, value.get<std::string>());
    else
      continue;
    WireWriter entry;
    entry.bytes(hparams_field::kMapKey, key);
    entry.bytes(hparams_field::kMapValue, proto_value.data());
    info.bytes(hparams_field::kHparams, entry.data());
  }
  info.fixed64(hparams_field::kStartTimeSecs, wall_time);
  WireWriter plugin_content;
  plugin_content.varint(hparams_field::kVersion, 0);
  plugin_content.bytes(hparams_field::kSessionStartInfo, info.data());

  WireWriter plugin_data, metadata;
  plugin_data.bytes(plugin_data_field::kPluginName, "hparams");
  plugin_data.bytes(plugin_data_field::kContent, plugin_content.data());
  metadata.bytes(metadata_field::kPluginData, plugin_data.data());
  WireWriter v;
  v.bytes(value_field::kTag, kSessionStartInfoTag);
  v.bytes(value_field::kMetadata, metadata.data());
  WireWriter summary;
  summary.bytes(kSummaryValue, v.data());
  WireWriter event;
  event.fixed64(event_field::kWallTime, wall_time);
  event.bytes(event_field::kSummary, summary.data());
  return event.take();
}

}  // namespace deepladder::tensorboard
