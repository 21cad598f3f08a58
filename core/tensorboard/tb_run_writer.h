// One run as a TensorBoard event file (`deepladder export-tb`): the file_version record, the
// hparams plugin's SessionStartInfo with the run's options, then, step by step, every metric's
// value at that step (tag = the metric key, a DT_DOUBLE scalar tensor: the stored value exactly)
// and the row's tokens and FLOPs under deepladder/tokens and deepladder/flops, so that importing
// the file again gives the same rows. Bytes only: the caller writes the file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/metric_curve.h"

namespace deepladder::tensorboard {

// The tags written beside the metrics: a row's tokens and FLOPs at each logged step (the importer
// reads them back as the rows' tokens and FLOPs, not as curves).
inline constexpr const char* kTokensTag = "deepladder/tokens";
inline constexpr const char* kFlopsTag = "deepladder/flops";

using NamedCurve = std::pair<std::string, std::vector<MetricPoint>>;  // key, points by step

// `hparams`: a flat JSON object (numbers, strings, booleans); `file_wall_time`: the time the file
// says it was opened (the run's start).
std::string encodeRunEventFile(const nlohmann::json& hparams, const std::vector<NamedCurve>& curves,
                               double file_wall_time);

// The name TensorBoard writers give event files: events.out.tfevents.<seconds>.<host>, here with
// "deepladder" as the host part so a reader can tell who wrote it.
std::string eventFileName(double file_wall_time);

}  // namespace deepladder::tensorboard
