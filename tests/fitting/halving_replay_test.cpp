// Sweep halving replayed on a finished ladder (fitting/halving_replay.h): a point that ends far
// worse than its rung's best is stopped at the first fraction its interval clears the best, it
// saves the FLOPs it did not train, and the best point of a rung is never stopped.
#include "fitting/halving_replay.h"

#include <gtest/gtest.h>

#include <random>

#include "shape_curves.h"

using namespace deepladder::fitting;
using namespace deepladder::fitting::testing;

namespace {

// Five rungs of one arm, each swept over three rates; the centre (x1) is best, x2 ends 0.3%
// above it (with these curves' 0.2% noise, stopping it is the rule's call), x0.5 ends 25% above.
// Centres run first, then the others, one after another.
std::vector<ReplayRun> sweptLadder() {
  std::mt19937 rng(11);
  std::vector<ReplayRun> runs;
  int64_t id = 1;
  double clock = 0;
  const std::vector<int64_t> totals = {100, 150, 200, 300, 400};
  for (const char* label : {"x1", "x2", "x0.5"}) {
    for (int64_t total : totals) {
      const double best = 3.0 - 0.003 * double(total);
      const double final_loss = std::string(label) == "x1"   ? best
                                : std::string(label) == "x2" ? best * 1.003
                                                             : best * 1.25;
      const double peak = std::string(label) == "x1"   ? 0.01
                          : std::string(label) == "x2" ? 0.02
                                                       : 0.005;
      ReplayRun r;
      r.curve = shapeCurve(id++, "arm", total, peak, final_loss, rng);
      r.rung = "arm d" + std::to_string(total);
      r.label = label;
      r.started = clock;
      r.finished = clock + double(total);
      r.flops = 1e9 * double(total);
      clock = r.finished;
      runs.push_back(std::move(r));
    }
  }
  return runs;
}

}  // namespace

TEST(HalvingReplay, StopsTheFarWorsePointsAndSavesWhatTheyDidNotTrain) {
  const std::vector<ReplayRun> runs = sweptLadder();
  const HalvingReplay replay = replayHalving(runs, {0.25, 0.5, 0.75}, CurveLawOptions{});
  double total = 0;
  for (const ReplayRun& r : runs) total += r.flops;
  EXPECT_DOUBLE_EQ(replay.flops_total, total);
  EXPECT_EQ(replay.rungs, 5);
  EXPECT_EQ(replay.best_stopped, 0);
  double saved = 0;
  int far_worse = 0, covered = 0;
  for (const ReplayStop& s : replay.stops) {
    EXPECT_NE(s.decision.label, "x1") << s.rung;
    EXPECT_FALSE(s.was_best) << s.rung;
    far_worse += s.decision.label == "x0.5";
    const auto run = std::find_if(runs.begin(), runs.end(), [&](const ReplayRun& r) {
      return r.curve.run_id == s.decision.run_id;
    });
    ASSERT_NE(run, runs.end());
    EXPECT_DOUBLE_EQ(s.flops_saved, (1.0 - s.decision.fraction) * run->flops);
    saved += s.flops_saved;
    EXPECT_DOUBLE_EQ(s.measured, *run->curve.final_loss);
    EXPECT_EQ(s.covered(), s.decision.lo <= s.measured && s.measured <= s.decision.hi);
    covered += s.covered();
  }
  EXPECT_EQ(replay.stopsCovered(), covered);
  // The x0.5 points of the rungs that come after three finished peers calibrate the interval.
  EXPECT_GE(far_worse, 3);
  EXPECT_DOUBLE_EQ(replay.flops_saved, saved);
  EXPECT_GT(replay.flops_saved, 0.0);
}

TEST(HalvingReplay, NothingIsStoppedWithoutASweep) {
  std::vector<ReplayRun> runs = sweptLadder();
  for (ReplayRun& r : runs) r.label.clear();
  const HalvingReplay replay = replayHalving(runs, {0.25, 0.5, 0.75}, CurveLawOptions{});
  EXPECT_TRUE(replay.stops.empty());
  EXPECT_EQ(replay.judgements, 0);
  EXPECT_EQ(replay.flops_saved, 0.0);
}

TEST(HalvingReplay, CalibrationRunsAreNeverJudged) {
  // The points of the two smallest rungs run to their end in a live ladder
  // (storage::calibrationRuns); the replay marks them and judges only the others.
  std::vector<ReplayRun> runs = sweptLadder();
  const HalvingReplay all = replayHalving(runs, {0.25, 0.5, 0.75}, CurveLawOptions{});
  for (ReplayRun& r : runs) r.calibration = r.rung == "arm d100" || r.rung == "arm d150";
  const HalvingReplay spared = replayHalving(runs, {0.25, 0.5, 0.75}, CurveLawOptions{});
  ASSERT_FALSE(spared.stops.empty());
  for (const ReplayStop& s : spared.stops) {
    EXPECT_NE(s.rung, "arm d100");
    EXPECT_NE(s.rung, "arm d150");
  }
  // The three other rungs' two off-centre points are judged at three fractions at most; the
  // calibration rungs' points never.
  EXPECT_LE(spared.judgements, 3 * 2 * 3);
  EXPECT_LT(spared.judgements, all.judgements);
}
