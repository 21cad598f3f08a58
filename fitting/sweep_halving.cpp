// Successive halving of a rung's sweep points (see sweep_halving.h).
#include "fitting/sweep_halving.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace deepladder::fitting {
namespace {

bool hasLoss(const HalvingPoint& p) {
  if (!p.loss || !std::isfinite(*p.loss)) return false;
  if (p.state == HalvingState::kFinished) return true;
  return p.state == HalvingState::kRunning && p.calibrated;
}

std::string figure(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4f", v);
  return buffer;
}

}  // namespace

std::vector<double> defaultHalvingFractions() {
  return {0.25, 0.5, 0.75};
}

double dueHalvingFraction(const std::vector<double>& fractions, double judged, double fraction) {
  double due = std::numeric_limits<double>::quiet_NaN();
  for (double f : fractions)
    if (f > judged && f <= fraction && (std::isnan(due) || f > due)) due = f;
  return due;
}

std::vector<HalvingDecision> halveRung(std::vector<HalvingPoint>& rung) {
  std::vector<HalvingDecision> out;
  // Candidates, worst predicted first.
  std::vector<size_t> order;
  for (size_t i = 0; i < rung.size(); ++i)
    if (rung[i].state == HalvingState::kRunning && !std::isnan(rung[i].due) && hasLoss(rung[i]))
      order.push_back(i);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return *rung[a].loss > *rung[b].loss; });
  for (size_t i : order) {
    HalvingPoint& p = rung[i];
    // Whether this point is the rung's best (the lowest loss of any point with one); the other
    // point surest to beat it (the lowest high end of an interval: a measured loss, or the
    // prediction whose worst case is best, so that a wide prediction, low but unsure, does not
    // shield a clear loser from a point measured or tightly predicted below it); how many other
    // points are still alive.
    const HalvingPoint* best_other = nullptr;
    bool is_best = true;
    int alive_others = 0;
    for (size_t j = 0; j < rung.size(); ++j) {
      if (j == i) continue;
      const HalvingPoint& q = rung[j];
      if (q.state != HalvingState::kStopped && q.state != HalvingState::kFailed) ++alive_others;
      if (!hasLoss(q)) continue;
      if (*q.loss <= *p.loss) is_best = false;
      if (!best_other || q.hi < best_other->hi) best_other = &q;
    }
    if (is_best || alive_others == 0 || !best_other) continue;
    if (!(p.lo > best_other->hi)) continue;
    HalvingDecision d;
    d.run_id = p.run_id;
    d.label = p.label;
    d.fraction = p.due;
    d.predicted = *p.loss;
    d.lo = p.lo;
    d.hi = p.hi;
    d.best_label = best_other->label;
    d.best_loss = *best_other->loss;
    d.best_lo = best_other->lo;
    d.best_hi = best_other->hi;
    d.best_measured = best_other->state == HalvingState::kFinished;
    d.reason = "at " + figure(d.fraction) + " of its run " + p.label + " is predicted to end at " +
               figure(d.predicted) + " [" + figure(d.lo) + ", " + figure(d.hi) + "], worse than " +
               d.best_label + "'s " + (d.best_measured ? "measured " : "predicted ") +
               figure(d.best_loss) +
               (d.best_measured ? "" : " [" + figure(d.best_lo) + ", " + figure(d.best_hi) + "]") +
               " beyond both intervals";
    p.state = HalvingState::kStopped;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace deepladder::fitting
