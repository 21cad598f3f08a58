// A run's curves as one TensorBoard event file (see tb_run_writer.h).
#include "core/tensorboard/tb_run_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "core/tensorboard/tb_event.h"
#include "core/tensorboard/tfrecord.h"

namespace deepladder::tensorboard {

std::string encodeRunEventFile(const nlohmann::json& hparams, const std::vector<NamedCurve>& curves,
                               double file_wall_time) {
  std::string out;
  EventEncoder encoder;
  appendTfRecord(out, encodeFileVersionEvent(file_wall_time));
  if (!hparams.empty()) appendTfRecord(out, encoder.sessionStartInfo(file_wall_time, hparams));
  // Merge the curves by step, so the file reads in time order like one a trainer wrote.
  std::vector<size_t> next(curves.size(), 0);
  for (;;) {
    int64_t step = INT64_MAX;
    for (size_t c = 0; c < curves.size(); ++c)
      if (next[c] < curves[c].second.size()) step = std::min(step, curves[c].second[next[c]].step);
    if (step == INT64_MAX) break;
    const MetricPoint* first = nullptr;
    for (size_t c = 0; c < curves.size(); ++c) {
      const auto& points = curves[c].second;
      while (next[c] < points.size() && points[next[c]].step == step) {
        const MetricPoint& p = points[next[c]++];
        if (!first) first = &p;
        appendTfRecord(out, encoder.scalar(p.wall, p.step, curves[c].first, p.value));
      }
    }
    appendTfRecord(
        out, encoder.scalar(first->wall, step, kTokensTag, static_cast<double>(first->tokens)));
    appendTfRecord(out, encoder.scalar(first->wall, step, kFlopsTag, first->flops));
  }
  return out;
}

std::string eventFileName(double file_wall_time) {
  const long long seconds =
      std::isfinite(file_wall_time) && file_wall_time > 0 ? (long long)file_wall_time : 0;
  return "events.out.tfevents." + std::to_string(seconds) + ".deepladder";
}

}  // namespace deepladder::tensorboard
