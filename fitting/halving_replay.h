// Sweep halving replayed on a finished ladder: what `[sweep] stop = "halving"` would have
// stopped, and the compute it would have saved, had it been on while the ladder ran. Each run
// keeps the wall-clock interval it really ran in; at every moment a run passes one of the halving
// fractions, the ladder is rebuilt as it stood then (runs finished by that moment with their final
// loss, running ones cut where they were, stopped ones cut where they were stopped) and the
// rung is judged by the live rule (fitting/sweep_halving.h) on the live predictions
// (fitting/curve_prediction.h). A stopped run saves the FLOPs of the part it did not train. Runs
// marked as calibration runs (each arm's two smallest rungs, storage::calibrationRuns) are never
// judged, as in a live ladder.
//
// What it does not model: a halved ladder starts its later runs sooner on the slots stops free, so
// its wall-clock saving comes from FLOPs saved spread over the slots; the replay gives the FLOPs
// and the decisions, not a schedule. `deepladder predict --replay-halving` prints it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fitting/loss_curve_law.h"
#include "fitting/sweep_halving.h"

namespace deepladder::fitting {

// One run of the finished ladder.
struct ReplayRun {
  RunCurve curve;       // its whole curve; final_loss set for a finished run
  std::string rung;     // runs judged together (arm and size)
  std::string label;    // its sweep point ("lr_mult0.5"); "" for a run outside any sweep
  double started = 0;   // wall clock, seconds
  double finished = 0;  // wall clock, seconds (> started)
  double flops = 0;     // FLOPs of the whole run
  // One of its arm's smallest rungs (storage::calibrationRuns): never judged, as in a live ladder.
  bool calibration = false;
};

struct ReplayStop {
  HalvingDecision decision;
  std::string rung;
  double flops_saved = 0;  // (1 - fraction) x the run's FLOPs
  bool was_best = false;   // the run's measured final loss was its rung's lowest: a wrong stop
  double measured = 0;     // the run's measured final loss (NaN for a run without one)
  // The measured final loss lay in the interval the stop was decided on (a stop may be right
  // on a wrong interval: this counts the intervals, was_best the decisions).
  bool covered() const { return decision.lo <= measured && measured <= decision.hi; }
};

struct HalvingReplay {
  std::vector<ReplayStop> stops;
  int judgements = 0;      // moments a point was judged
  double flops_total = 0;  // the ladder as it ran
  double flops_saved = 0;  // by the stops
  int rungs = 0;           // rungs with a sweep
  int best_stopped = 0;    // rungs whose best measured point the replay stopped
  // The stops whose interval held the run's measured final loss.
  int stopsCovered() const;
};

HalvingReplay replayHalving(const std::vector<ReplayRun>& runs,
                            const std::vector<double>& fractions, const CurveLawOptions& options);

}  // namespace deepladder::fitting
