// Squaring-ladder points from a fixture database whose runs and evals are constructed here (no
// training): E1 runs (training moduli 9 bits, OOD moduli 10 and 11 bits, depth ladder 1..64)
// with hand-written squaring/depth, squaring/ood_t and squaring/test rows, so Max T on seen and
// unseen moduli and the exact-match fractions are known by construction.
#include "storage/squaring_points.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/run_config.h"
#include "core/squaring/baselines.h"
#include "core/squaring/dataset.h"

namespace deepladder::storage {
namespace {

std::string squaringConfigJson() {
  RunConfig c;
  c.task = Task::squaring;
  c.model.vocab_size = 17;
  c.model.positions = Positions::learned;
  c.model.attention = AttentionMask::bidirectional;
  c.model.seq_len = 64;
  c.squaring.tier = "E1";
  return toJson(c).dump();
}

int64_t addRun(Database& db, int64_t ladder, const std::string& arm, double flops,
               RunStatus status = RunStatus::kFinished, const std::string& config = "") {
  RunRecord r;
  r.ladder_id = ladder;
  r.name = arm + "-" + std::to_string(static_cast<long long>(flops));
  r.arm = arm;
  r.status = status;
  r.flops = flops;
  r.final_loss = 1.0;
  r.config_json = config.empty() ? squaringConfigJson() : config;
  return db.insertRun(r);
}

// Depth rows at `step`: every rung of seen moduli (9 bits) correct up to `seen_full` (larger T
// miss one of 288), every rung of 10/11-bit moduli correct up to `unseen_full`.
void addDepth(Database& db, int64_t run, int64_t step, int64_t seen_full, int64_t unseen_full) {
  std::vector<EvalRow> rows;
  for (int64_t t : {1, 2, 4, 8, 16, 32, 64}) {
    rows.push_back({run, step, "squaring/depth", 9, t, t <= seen_full ? 288 : 287, 288});
    for (int64_t bits : {10, 11})
      rows.push_back({run, step, "squaring/depth", bits, t, t <= unseen_full ? 100 : 40, 100});
  }
  db.writeEvals(rows);
}

TEST(SquaringPoints, MaxTAndExactMatchFromTheLastEvaluatedStep) {
  auto db = Database::open(":memory:");
  const int64_t ladder = db->upsertLadder("sq", "spec", "h");
  const int64_t a = addRun(*db, ladder, "baseline", 2e12);
  const int64_t b = addRun(*db, ladder, "looped", 8e12);
  addRun(*db, ladder, "looped", 3e13, RunStatus::kRunning);  // unfinished: not a point
  addDepth(*db, a, 100, /*seen_full=*/0, /*unseen_full=*/0);
  addDepth(*db, a, 200, /*seen_full=*/2, /*unseen_full=*/1);
  db->writeEvals({{a, 200, "squaring/ood_t", 9, 6, 72, 288},
                  {a, 200, "squaring/test", 9, 1, 50, 60},
                  {a, 200, "squaring/test", 9, 2, 40, 60},
                  {a, 200, "squaring/test", 9, 3, 30, 53},
                  {a, 100, "squaring/ood_t", 9, 6, 288, 288},         // an older step: ignored
                  {a, 200, "squaring/depth@r=8", 9, 64, 288, 288}});  // a sweep: not Max T
  addDepth(*db, b, 300, /*seen_full=*/64, /*unseen_full=*/0);
  db->writeEvals({{b, 300, "squaring/ood_t", 9, 6, 288, 288}});

  EXPECT_TRUE(isSquaringLadder(*db, "sq"));
  const auto points = squaringPoints(*db, "fixture.db", "sq");
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].run_id, a);
  EXPECT_EQ(points[0].arm, "baseline");
  EXPECT_DOUBLE_EQ(points[0].compute, 2e12);
  EXPECT_EQ(points[0].step, 200);
  EXPECT_EQ(points[0].max_t_seen, 2);
  EXPECT_EQ(points[0].max_t_unseen, 1);
  EXPECT_DOUBLE_EQ(points[0].ood_exact, 72.0 / 288.0);
  EXPECT_DOUBLE_EQ(points[0].test_exact, 120.0 / 173.0);
  EXPECT_EQ(points[1].max_t_seen, 64);
  EXPECT_EQ(points[1].max_t_unseen, 0);
  EXPECT_DOUBLE_EQ(points[1].ood_exact, 1.0);
  EXPECT_DOUBLE_EQ(points[1].test_exact, 0.0);  // no test rows recorded
  // The benchmark's score, and the reference lines of the run's data (E1, data_seed 0) from core.
  EXPECT_DOUBLE_EQ(points[0].score, (72.0 / 288.0 + 120.0 / 173.0) / 2);
  const auto data = squaring::generateTierDataset(squaring::tierPreset("E1"), 0);
  const auto closure = squaring::tierCompositionClosure(squaring::tierPreset("E1"), data);
  const auto test = squaring::setBaselines(data.test, closure.get());
  EXPECT_DOUBLE_EQ(points[0].test_chance, test.chance);
  EXPECT_DOUBLE_EQ(points[0].test_ceiling, test.ceiling);
  EXPECT_NEAR(points[0].ood_chance, 1.0 / 9, 1e-12);  // N = 323 at T = 6
  EXPECT_GT(points[0].ood_ceiling, 0.5);
}

TEST(SquaringPoints, ScoresOverSeedsAreTheMeanScoreAndTheMinimumMaxT) {
  auto db = Database::open(":memory:");
  const int64_t ladder = db->upsertLadder("sq", "spec", "h");
  std::vector<int64_t> ids;
  for (int64_t seed : {1, 2, 3}) {
    RunRecord r;
    r.ladder_id = ladder;
    r.name = "looped-s" + std::to_string(seed);
    r.arm = "looped";
    r.size = "d64";
    r.seed = seed;
    r.status = RunStatus::kFinished;
    r.flops = 1e12 * static_cast<double>(seed);
    r.final_loss = 1.0;
    r.config_json = squaringConfigJson();
    ids.push_back(db->insertRun(r));
  }
  addDepth(*db, ids[0], 10, /*seen_full=*/4, /*unseen_full=*/1);
  addDepth(*db, ids[1], 10, /*seen_full=*/1, /*unseen_full=*/2);
  addDepth(*db, ids[2], 10, /*seen_full=*/8, /*unseen_full=*/0);
  for (size_t i = 0; i < ids.size(); ++i)
    db->writeEvals({{ids[i], 10, "squaring/test", 9, 1, static_cast<int64_t>(10 * (i + 1)), 50},
                    {ids[i], 10, "squaring/ood_t", 9, 6, 50, 100}});
  const auto groups = squaringScoresOverSeeds(squaringPoints(*db, "fixture.db", "sq"));
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].arm, "looped");
  EXPECT_EQ(groups[0].size, "d64");
  EXPECT_EQ(groups[0].score.seeds, 3);
  EXPECT_NEAR(groups[0].score.test_exact, 0.4, 1e-12);  // (0.2 + 0.4 + 0.6) / 3
  EXPECT_NEAR(groups[0].score.score, 0.45, 1e-12);      // (0.4 + 0.5) / 2
  EXPECT_EQ(groups[0].score.max_t, 1);                  // min(4, 1, 8)
  EXPECT_EQ(groups[0].score.max_t_ood_n, 0);
  EXPECT_DOUBLE_EQ(groups[0].compute, 2e12);
}

// The points of a sweep are separate groups (one per swept value), not seeds of one group; each
// point carries its run's admissibility.
TEST(SquaringPoints, SweepPointsGroupApartAndCarryTheirAdmissibility) {
  auto db = Database::open(":memory:");
  const int64_t ladder = db->upsertLadder("sq", "spec", "h");
  std::vector<int64_t> ids;
  for (const char* label : {"d_model32", "d_model96"}) {
    RunRecord r;
    r.ladder_id = ladder;
    r.name = std::string("width-d64-s1-") + label;
    r.arm = "width";
    r.size = "d64";
    r.seed = 1;
    r.status = RunStatus::kFinished;
    r.flops = 1e12;
    r.final_loss = 1.0;
    r.config_json = squaringConfigJson();
    ids.push_back(db->insertRun(r));
  }
  for (int64_t id : ids) addDepth(*db, id, 10, /*seen_full=*/0, /*unseen_full=*/0);
  const auto points = squaringPoints(*db, "fixture.db", "sq");
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].sweep, "d_model32");
  EXPECT_TRUE(points[0].admissible);
  EXPECT_EQ(points[0].inadmissible_options, "");
  const auto groups = squaringScoresOverSeeds(points);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].sweep, "d_model32");
  EXPECT_EQ(groups[1].sweep, "d_model96");
  EXPECT_EQ(groups[1].score.seeds, 1);
}

TEST(SquaringPoints, LanguageModelLaddersAreNotSquaringLadders) {
  auto db = Database::open(":memory:");
  const int64_t ladder = db->upsertLadder("lm", "spec", "h");
  addRun(*db, ladder, "vanilla", 1e15, RunStatus::kFinished, toJson(RunConfig{}).dump());
  EXPECT_FALSE(isSquaringLadder(*db, "lm"));
  EXPECT_FALSE(isSquaringLadder(*db, "no-such-ladder"));
}

TEST(SquaringPoints, ClearErrorsForNothingToUse) {
  auto db = Database::open(":memory:");
  EXPECT_THROW(squaringPoints(*db, "fixture.db", "missing"), UserError);
  const int64_t ladder = db->upsertLadder("sq", "spec", "h");
  addRun(*db, ladder, "baseline", 1e12, RunStatus::kQueued);
  EXPECT_THROW(squaringPoints(*db, "fixture.db", "sq"), UserError);  // nothing finished
  addRun(*db, ladder, "baseline", 1e12);                             // finished, but no depth evals
  try {
    squaringPoints(*db, "fixture.db", "sq");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("squaring/depth"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fixture.db"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace deepladder::storage
