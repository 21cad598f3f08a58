// Squaring-ladder points from a fixture database whose runs and evals are constructed here (no
// training): E1 runs (training moduli 9 bits, OOD moduli 10 and 11 bits, depth ladder 1..64)
// with hand-written squaring/depth, squaring/ood_t and squaring/test rows, so Max T on seen and
// unseen moduli and the exact-match fractions are known by construction.
#include "storage/squaring_points.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/run_config.h"

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
               const std::string& status = "finished", const std::string& config = "") {
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
  addRun(*db, ladder, "looped", 3e13, "running");  // unfinished: not a point
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
}

TEST(SquaringPoints, LanguageModelLaddersAreNotSquaringLadders) {
  auto db = Database::open(":memory:");
  const int64_t ladder = db->upsertLadder("lm", "spec", "h");
  addRun(*db, ladder, "vanilla", 1e15, "finished", toJson(RunConfig{}).dump());
  EXPECT_FALSE(isSquaringLadder(*db, "lm"));
  EXPECT_FALSE(isSquaringLadder(*db, "no-such-ladder"));
}

TEST(SquaringPoints, ClearErrorsForNothingToUse) {
  auto db = Database::open(":memory:");
  EXPECT_THROW(squaringPoints(*db, "fixture.db", "missing"), UserError);
  const int64_t ladder = db->upsertLadder("sq", "spec", "h");
  addRun(*db, ladder, "baseline", 1e12, "queued");
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
