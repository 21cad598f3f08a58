// TensorBoard's Event protos (tensorflow/core/util/event.proto, summary.proto, tensor.proto and
// the hparams plugin's plugin_data.proto), decoded and encoded for what deepladder reads and
// writes: the step, the wall time, scalar summaries, and the run's hyperparameters.
//
// Scalars come in two spellings and both are read:
//  - Summary.Value.simple_value (field 2, float): TF1 and PyTorch's SummaryWriter by default;
//  - Summary.Value.tensor (field 8): TF2's tf.summary.scalar and SummaryWriter(new_style=True):
//    a TensorProto of dtype DT_FLOAT or DT_DOUBLE holding one value in float_val, double_val or
//    tensor_content. Its tag's plugin (SummaryMetadata.plugin_data.plugin_name, written with a
//    tag's first value only) must be "scalars" or absent: one-element tensors of other plugins
//    (histograms, text, hparams) are not scalars.
// Hyperparameters: the hparams plugin's SessionStartInfo (plugin_name "hparams", content a
// HParamsPluginData with session_start_info = field 3, its map hparams = field 1 of
// google.protobuf.Value: number, string or bool).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace deepladder::tensorboard {

struct TbScalar {
  std::string tag;
  double value = 0;
};

struct TbEvent {
  double wall_time = 0;
  int64_t step = 0;
  std::vector<TbScalar> scalars;
  std::optional<nlohmann::json> hparams;  // a SessionStartInfo's hparams, as a flat JSON object
};

// Decodes the events of one file in order (a tag's plugin is named by its first value only).
class EventDecoder {
 public:
  // Fills `event` from one record's data (cleared first). Throws WireFormatError with the offset
  // within `data` of a malformed field.
  void decode(std::string_view data, TbEvent& event);

 private:
  void decodeValue(std::string_view bytes, size_t offset, TbEvent& event);
  std::unordered_map<std::string, std::string> tag_plugin_;
};

// The record every event file starts with: an Event holding file_version "brain.Event:2".
std::string encodeFileVersionEvent(double wall_time);

// Encodes events for one file: scalars as DT_DOUBLE tensors (the value exactly as stored, not
// rounded to float) with plugin "scalars" named on a tag's first value, and the hparams
// plugin's SessionStartInfo.
class EventEncoder {
 public:
  std::string scalar(double wall_time, int64_t step, const std::string& tag, double value);
  // `hparams`: a flat JSON object of numbers, strings and booleans (other values are skipped).
  std::string sessionStartInfo(double wall_time, const nlohmann::json& hparams);

 private:
  std::unordered_set<std::string> tags_described_;
};

// The summary tag of the hparams plugin's SessionStartInfo.
inline constexpr const char* kSessionStartInfoTag = "_hparams_/session_start_info";

}  // namespace deepladder::tensorboard
