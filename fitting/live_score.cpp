// Scoring a finished run against the fit made before it (see live_score.h).
#include "fitting/live_score.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fitting/band_score.h"
#include "fitting/frontier_band.h"

namespace deepladder::fitting {

std::optional<LiveScore> scoreAgainstFitBefore(const FrontierResult& before,
                                               const ResultsTable& before_table,
                                               const RunPoint& run) {
  size_t index = before.arms.size();
  for (size_t i = 0; i < before.arms.size(); ++i)
    if (before.arms[i].arm == run.arm) index = i;
  if (index == before.arms.size()) return std::nullopt;
  const ArmFit& f = before.arms[index];
  if (!predictionProblem(f).empty()) return std::nullopt;
  LiveScore s;
  s.run_id = run.run_id;
  s.arm = run.arm;
  s.size = run.size;
  s.compute = run.compute_flops;
  s.measured_loss = run.val_loss;
  // The prediction interval `fit` printed before the run; where it printed none (too few rungs
  // for a misfit or a bootstrap band of no width), the bootstrap's band, as the score always had.
  const LossPrediction prediction = scoreAgainstPrediction(before, index, run.compute_flops, s);
  if (!std::isfinite(prediction.lo) || !std::isfinite(prediction.hi)) {
    const BandPoint band = frontierBand(before, index, {run.compute_flops}).at(0);
    if (!std::isfinite(prediction.lo)) s.lo = band.lo;
    if (!std::isfinite(prediction.hi)) s.hi = band.hi;
  }
  s.rel_error = (s.predicted_loss - s.measured_loss) / s.measured_loss;
  double top = 0;
  for (const auto& p : before_table.points)
    if (p.arm == run.arm) top = std::max(top, p.compute_flops);
  s.extrapolation = top > 0 ? run.compute_flops / top : kNaN;
  s.fitted_runs = static_cast<int>(before_table.points.size());
  return s;
}

std::string liveScoreLine(const LiveScore& s) {
  const std::string name = s.size.empty() ? s.arm : s.size;
  char buf[256];
  if (std::isfinite(s.lo) && std::isfinite(s.hi))
    std::snprintf(buf, sizeof buf, "%s came in at %.3f, predicted %.3f [%.2f, %.2f], %+.1f%% (%s)",
                  name.c_str(), s.measured_loss, s.predicted_loss, s.lo, s.hi, 100 * s.rel_error,
                  s.arm.c_str());
  else
    std::snprintf(buf, sizeof buf, "%s came in at %.3f, predicted %.3f, %+.1f%% (%s)", name.c_str(),
                  s.measured_loss, s.predicted_loss, 100 * s.rel_error, s.arm.c_str());
  return buf;
}

}  // namespace deepladder::fitting
