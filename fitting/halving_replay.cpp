// Sweep halving replayed on a finished ladder (see halving_replay.h).
#include "fitting/halving_replay.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "fitting/curve_prediction.h"

namespace deepladder::fitting {
namespace {

struct Moment {
  double time = 0;
  size_t run = 0;
  double fraction = 0;
};

// Where run r stood at `time`: 0 before it started, 1 once it finished.
double progressAt(const ReplayRun& r, double time) {
  if (time <= r.started) return 0.0;
  if (time >= r.finished) return 1.0;
  return (time - r.started) / (r.finished - r.started);
}

}  // namespace

int HalvingReplay::stopsCovered() const {
  return static_cast<int>(
      std::count_if(stops.begin(), stops.end(), [](const ReplayStop& s) { return s.covered(); }));
}

HalvingReplay replayHalving(const std::vector<ReplayRun>& runs,
                            const std::vector<double>& fractions, const CurveLawOptions& options) {
  HalvingReplay out;
  std::vector<Moment> moments;
  for (size_t i = 0; i < runs.size(); ++i) {
    out.flops_total += runs[i].flops;
    if (runs[i].label.empty() || runs[i].calibration || !(runs[i].finished > runs[i].started))
      continue;
    for (double f : fractions)
      moments.push_back({runs[i].started + f * (runs[i].finished - runs[i].started), i, f});
  }
  std::sort(moments.begin(), moments.end(),
            [](const Moment& a, const Moment& b) { return a.time < b.time; });
  // Each rung's best measured point (what halving must never stop).
  std::map<std::string, std::pair<double, int64_t>> best_of_rung;
  for (const ReplayRun& r : runs) {
    if (r.label.empty() || !r.curve.final_loss) continue;
    const auto it = best_of_rung.find(r.rung);
    if (it == best_of_rung.end() || *r.curve.final_loss < it->second.first)
      best_of_rung[r.rung] = {*r.curve.final_loss, r.curve.run_id};
  }
  out.rungs = static_cast<int>(best_of_rung.size());
  std::map<size_t, double> stopped_at;  // run index -> the fraction it was stopped at
  CurveCalibrationCache calibrations;   // reused while an arm's finished runs stay the same
  for (const Moment& m : moments) {
    if (stopped_at.count(m.run)) continue;
    const ReplayRun& judged = runs[m.run];
    // The arm's curves as they stood (only its own runs share parameters with it).
    std::vector<RunCurve> curves;
    std::map<int64_t, size_t> index_of;
    for (size_t i = 0; i < runs.size(); ++i) {
      const ReplayRun& r = runs[i];
      if (r.curve.group != judged.curve.group) continue;
      const auto stop = stopped_at.find(i);
      const double progress =
          i == m.run ? m.fraction
                     : (stop != stopped_at.end() ? stop->second : progressAt(r, m.time));
      if (progress <= 0) continue;
      if (progress >= 1.0 && stop == stopped_at.end() && r.curve.final_loss)
        curves.push_back(r.curve);
      else
        curves.push_back(truncateCurve(r.curve, progress));
      index_of[r.curve.run_id] = i;
    }
    std::map<int64_t, CurvePrediction> predicted;
    for (CurvePrediction& p :
         predictFinalLosses(curves, options, /*calibrate=*/true, &calibrations))
      predicted[p.run_id] = p;
    std::vector<HalvingPoint> rung;
    for (const RunCurve& c : curves) {
      const size_t i = index_of.at(c.run_id);
      const ReplayRun& r = runs[i];
      if (r.rung != judged.rung || r.label.empty()) continue;
      HalvingPoint h;
      h.run_id = c.run_id;
      h.label = r.label;
      if (stopped_at.count(i)) {
        h.state = HalvingState::kStopped;
      } else if (c.final_loss) {
        h.state = HalvingState::kFinished;
        h.loss = c.final_loss;
        h.lo = h.hi = *c.final_loss;
      } else {
        h.state = HalvingState::kRunning;
      }
      if (h.state != HalvingState::kFinished) {
        const auto p = predicted.find(c.run_id);
        if (p != predicted.end() && p->second.loss) {
          h.loss = p->second.loss;
          h.lo = p->second.lo;
          h.hi = p->second.hi;
          h.calibrated = p->second.calibrated;
        }
      }
      if (i == m.run) h.due = m.fraction;
      rung.push_back(std::move(h));
    }
    // Runs of the rung not started yet are queued points: they keep the rung's last point alive.
    for (size_t i = 0; i < runs.size(); ++i) {
      const ReplayRun& r = runs[i];
      if (r.rung != judged.rung || r.label.empty() || index_of.count(r.curve.run_id)) continue;
      HalvingPoint h;
      h.run_id = r.curve.run_id;
      h.label = r.label;
      h.state = HalvingState::kQueued;
      rung.push_back(std::move(h));
    }
    ++out.judgements;
    for (const HalvingDecision& d : halveRung(rung)) {
      const size_t i = index_of.at(d.run_id);
      stopped_at[i] = d.fraction;
      const double saved = (1.0 - d.fraction) * runs[i].flops;
      out.flops_saved += saved;
      const bool was_best = best_of_rung[runs[i].rung].second == d.run_id;
      out.best_stopped += was_best;
      out.stops.push_back(
          {d, runs[i].rung, saved, was_best, runs[i].curve.final_loss.value_or(std::nan(""))});
    }
  }
  return out;
}

}  // namespace deepladder::fitting
