// Curve predictions: each unfinished run's final validation loss from its curve so far and its
// known schedule, by two kinds of predictor: the law of fitting/loss_curve_law.h (fitted jointly
// with the finished runs of its arm) and the peers' curve ratios (fitting/curve_transfer.h, five
// variants). Per arm and fraction of a run, the one whose backtests on the arm's finished runs
// erred less (RMS) gives the prediction, with a 95% prediction interval calibrated on those
// backtests: each one is cut at the same fraction, predicted as if it were running (the others in
// full), and the interval's half-width is t(0.975, m-1) sqrt(1 + 1/m) x the RMS relative error of
// those m backtests (bias included); for the peers' curve ratios, each backtest's error divided by
// (1 + its leverage)^(1/4) and the half-width multiplied by (1 + the run's own)^(1/4)
// (fitting/curve_transfer.h: a run its peers do not span gets a wider interval; why 1/4:
// curve_prediction.cpp). Before an arm has min_backtests finished runs the interval uses the
// options' prior misfit with z = 1.96, and the prediction says it is uncalibrated; sweep halving
// acts on calibrated predictions only (fitting/sweep_halving.h).
//
// What it does not do: read curves (storage/curve_inputs.h) or decide anything.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fitting/loss_curve_law.h"

namespace deepladder::fitting {

struct CurvePrediction {
  int64_t run_id = 0;
  std::string name;
  double fraction = 0;         // updates measured / updates planned
  std::optional<double> loss;  // predicted final validation loss; nullopt: see `reason`
  double lo = 0, hi = 0;       // its 95% prediction interval
  double misfit = 0;           // relative error behind the interval (backtest RMS or the prior)
  int backtests = 0;           // finished runs of the arm that calibrated it (0: the prior)
  bool calibrated = false;     // backtests >= options.min_backtests
  // "law" (fitting/loss_curve_law.h), "peers-pooled" (fitting/curve_transfer.h: every arm's
  // finished runs, local in size and rate: TransferShape::kPooledAcrossArms), "peers" (the arm's
  // own runs, from validation levels where the runs validated at the fraction), "peers-bent" (the
  // same, the gain bent in ln T: TransferShape::kBentInLogT), "peers-local" (the same, weighted
  // towards the run's size and reading its rate's offset: TransferShape::kLocalInLogT) or
  // "peers-train" (from train levels): whichever predicted the arm's other finished runs best at
  // this fraction ("law" until the peers have min_backtests backtests, and always without
  // calibration).
  std::string method = "law";
  std::string reason;  // why there is no prediction ("" when there is one)
};

// The run cut after `fraction` of its planned updates: its points up to there, no final loss.
RunCurve truncateCurve(const RunCurve& run, double fraction);

// Updates measured so far / planned (0 without points).
double curveFraction(const RunCurve& run);

// The backtests that calibrate the intervals (each finished run of an arm cut at a fraction and
// predicted from the others: most of a prediction's cost), kept from one call of
// predictFinalLosses to the next while the arm's finished runs are the same (the pooled peers'
// backtests, which read every arm's, are redone when any arm's change: they fit no law, and cost
// little). A live ladder judges
// its sweep points hundreds of times and its runs finish a few dozen times: one cache per ladder
// turns those judgements from refitting every finished run into fitting the running ones.
class CurveCalibrationCache {
 public:
  CurveCalibrationCache();
  ~CurveCalibrationCache();
  CurveCalibrationCache(const CurveCalibrationCache&) = delete;
  CurveCalibrationCache& operator=(const CurveCalibrationCache&) = delete;

  int64_t hits() const;    // calibrations reused
  int64_t misses() const;  // calibrations computed

  struct Entries;  // by arm and calibration fraction (curve_prediction.cpp)

 private:
  friend std::vector<CurvePrediction> predictFinalLosses(const std::vector<RunCurve>&,
                                                         const CurveLawOptions&, bool,
                                                         CurveCalibrationCache*);
  std::unique_ptr<Entries> entries_;
  int64_t hits_ = 0, misses_ = 0;
};

// A prediction for every run of `runs` without a final loss; the runs with one are the finished
// runs that share parameters and calibrate the intervals. calibrate = false: point predictions
// only (no backtests; every interval is the prior's, uncalibrated), for the live projection.
// `cache` (optional) keeps the calibrations between calls; the predictions are the same with it
// or without.
std::vector<CurvePrediction> predictFinalLosses(const std::vector<RunCurve>& runs,
                                                const CurveLawOptions& options,
                                                bool calibrate = true,
                                                CurveCalibrationCache* cache = nullptr);

// One finished run cut at one fraction and predicted: what the bench and the interval's
// calibration score.
struct CurveBacktest {
  int64_t run_id = 0;
  std::string name, group;
  double fraction = 0;
  double measured = 0;
  CurvePrediction prediction;
  double relError() const {
    return prediction.loss ? (*prediction.loss - measured) / measured
                           : std::numeric_limits<double>::quiet_NaN();
  }
  bool covered() const {
    return prediction.loss && prediction.lo <= measured && measured <= prediction.hi;
  }
};

// Every finished run of `runs` cut at each fraction and predicted from the other finished runs
// of its group in full; each interval is calibrated by the other runs' backtests at the same
// fraction (never by the run's own error).
std::vector<CurveBacktest> backtestCurves(const std::vector<RunCurve>& runs,
                                          const std::vector<double>& fractions,
                                          const CurveLawOptions& options);

}  // namespace deepladder::fitting
