// Successive halving inside a sweep (`[sweep] stop = "halving"`, core/ladder/sweep_stop.h): when
// a running sweep point passes one of the configured fractions of its run (1/4, 1/2, 3/4 by
// default), it is stopped if its predicted final loss (fitting/curve_prediction.h) is worse than
// the rung's current best, measured or predicted, beyond both intervals: its interval's low end
// above the high end of another point's (a finished point's interval is its measured loss; of the
// others, the one with the lowest high end, so that a low but unsure prediction does not shield a
// clear loser from a point measured below it). Only calibrated
// predictions take part, on either side. A point that is the rung's best (the lowest loss,
// measured or predicted) is never stopped, nor the last point of a rung that is not stopped or
// failed; decisions of one rung are taken one after another, worst first, so neither can happen
// through two stops at once.
//
// What it does not do: stop the worker (the live ladder does, app/live_ladder.cpp), store the
// decision (storage/decisions.cpp) or choose which points are judged (app/ladder_halving.h: never
// the calibration rungs' points, nor a point the user reopened).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace deepladder::fitting {

enum class HalvingState { kQueued, kRunning, kFinished, kStopped, kFailed };

// One sweep point of a rung as halving sees it.
struct HalvingPoint {
  int64_t run_id = 0;
  std::string label;  // "lr_mult0.5"
  HalvingState state = HalvingState::kQueued;
  std::optional<double> loss;  // finished: measured final loss; running: predicted
  double lo = 0, hi = 0;       // finished: the loss itself; running: the 95% prediction interval
  bool calibrated = false;     // running: the prediction's interval was calibrated
  // Running: the largest halving fraction it has passed and has not been judged at yet (NaN when
  // none is due).
  double due = std::numeric_limits<double>::quiet_NaN();
};

// Why a point was stopped, with the figures behind it.
struct HalvingDecision {
  int64_t run_id = 0;
  std::string label;
  double fraction = 0;  // the halving fraction it was judged at
  double predicted = 0, lo = 0, hi = 0;
  std::string best_label;
  double best_loss = 0, best_lo = 0, best_hi = 0;
  bool best_measured = false;  // the best was a finished point (else a prediction)
  std::string reason;          // one line, as status and the decision log print it
};

// The default fractions 1/4, 1/2, 3/4.
std::vector<double> defaultHalvingFractions();

// The largest of `fractions` in (judged, fraction]: the checkpoint a point at `fraction` of its run
// is due for when it was last judged at `judged` (0: never); NaN when none.
double dueHalvingFraction(const std::vector<double>& fractions, double judged, double fraction);

// The stops for one rung: every running point with a due fraction, judged worst first. The points
// stopped come back with state kStopped in `rung`.
std::vector<HalvingDecision> halveRung(std::vector<HalvingPoint>& rung);

}  // namespace deepladder::fitting
