// Wiring of sweep halving for `run` (`[sweep] stop = "halving"`, core/ladder/sweep_stop.h): on a
// running sweep point's progress, when it has passed a halving fraction it was not judged at yet,
// the running points of every arm with a point due are predicted (fitting/curve_prediction.h,
// curves read by app/curve_inputs.h), the predictions are stored with the runs' metrics
// (pred/final_loss and its interval, core/metric_keys.h), and each rung with a due point is halved
// (fitting/sweep_halving.h). A stopped point's status becomes stopped with the decision's reason,
// and the decision with its figures goes to the ladder's decision log (kind "halving-stop"); the
// scheduler, which polls for cancelled runs, then ends its worker and settles it stopped
// (resumable: `resume --stopped RUN`). The points of each arm's two smallest rungs are never
// judged (storage::calibrationRuns): their finished curves at every swept value are what the big
// rungs' points at those values are predicted from. A point that validates at the fraction (the
// ladder adds its stop fractions to train.eval_at) is judged once that validation loss is stored.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/ladder/sweep_stop.h"
#include "fitting/curve_prediction.h"
#include "storage/database.h"

namespace deepladder::app {

class LadderHalving {
 public:
  LadderHalving(storage::Database& db, int64_t ladder_id, ladder::SweepStop stop);

  // A run of the ladder reported progress at `step`: cheap unless a halving fraction fell due.
  // Returns the lines to print (predictions made, points stopped). Never throws.
  std::vector<std::string> onProgress(int64_t run_id, int64_t step);

  // Runs judged so far at each fraction (for tests and the bench).
  int decisionsTaken() const { return decisions_; }

 private:
  struct Point {
    std::string arm, size, label;
    int64_t total_steps = 0;
    double judged = 0;  // the largest halving fraction it was judged at
    bool swept = false;
    bool reopened = false;  // reopened by the user (resume --stopped): never judged again
    // One of each arm's smallest rungs (storage::calibrationRuns): runs to its end, never judged.
    bool calibration = false;
    std::vector<double> eval_fractions;  // its train.eval_at: where it validates mid-run
  };
  void refreshPoints();
  // False while a point due at `fraction`, whose run validates there (train.eval_at), has not
  // had that validation loss stored yet: the prediction reads it, and the ingester writes in
  // batches, behind the progress line. Should it never come (a run resumed past it), true a
  // twentieth of the run (at least 16 updates) later.
  bool validationStored(int64_t run_id, const Point& point, double fraction, int64_t step);
  // The running points that have passed a halving fraction they were not judged at (and whose
  // validation loss there is stored), with that fraction: computed once per judgement, for the
  // arms to predict and the rungs to halve.
  std::map<int64_t, double> duePoints(const std::vector<storage::RunSummary>& runs,
                                      int64_t trigger_run, int64_t trigger_step);
  std::vector<std::string> judge(int64_t trigger_run, int64_t trigger_step);

  storage::Database& db_;
  int64_t ladder_id_;
  ladder::SweepStop stop_;
  std::map<int64_t, Point> points_;
  int decisions_ = 0;
  // The calibrations of the intervals, recomputed only when an arm's finished runs change.
  fitting::CurveCalibrationCache calibrations_;
};

}  // namespace deepladder::app
